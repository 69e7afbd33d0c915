"""What the EHR tools share: argument checks, the EHR client, and one failure boundary.

``guarded`` wraps each tool so that nothing raises into the graph: refused arguments,
EHR failures (mapped from the client's error kinds) and bugs all end as a typed,
pre-formatted ``ToolOutcome`` whose raw detail stays out of the model's sight.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from docgemma.ehr.client import EHRClient, EHRError
from docgemma.ehr.operations import FHIR_ID
from docgemma.tools.base import ToolContext, ToolErrorType, ToolOutcome
from docgemma.tools.http import error_outcome, unexpected_outcome

_KIND_TO_ERROR = {
    "timeout": ToolErrorType.TIMEOUT,
    "unavailable": ToolErrorType.SERVICE_UNAVAILABLE,
    "auth": ToolErrorType.SERVICE_UNAVAILABLE,
    "not_found": ToolErrorType.NOT_FOUND,
    "invalid": ToolErrorType.INVALID_ARGS,
    "rate_limit": ToolErrorType.RATE_LIMIT,
    "server_error": ToolErrorType.SERVER_ERROR,
    "malformed": ToolErrorType.MALFORMED_RESPONSE,
}


class Refused(Exception):
    """A call the tool declines before touching the EHR; carries its outcome."""

    def __init__(self, outcome: ToolOutcome) -> None:
        super().__init__(outcome.formatted)
        self.outcome = outcome


def ehr_client(ctx: ToolContext) -> EHRClient:
    return ctx.fhir if ctx.fhir is not None else EHRClient.from_settings(ctx.settings)


def require(label: str, **fields: str | None) -> None:
    missing = [name for name, value in fields.items() if not (value or "").strip()]
    if missing:
        raise Refused(
            error_outcome(
                ToolErrorType.MISSING_REQUIRED_ARGS,
                label,
                missing_fields=missing,
                detail=f"blank argument(s): {', '.join(missing)}",
            )
        )


def check_patient_id(label: str, patient_id: str) -> str:
    pid = patient_id.strip()
    require(label, patient_id=pid)
    if not FHIR_ID.match(pid):
        raise Refused(
            error_outcome(
                ToolErrorType.INVALID_ARGS,
                label,
                entity=pid,
                detail=f"malformed patient id {pid!r}",
                message=(
                    f"'{pid}' is not a valid patient ID (IDs look like abc-123, without spaces). "
                    "Search for the patient by name first to find the ID."
                ),
            )
        )
    return pid


ToolBody = Callable[[Any, ToolContext], Awaitable[ToolOutcome]]


def guarded(label: str, entity: Callable[[Any], str | None]) -> Callable[[ToolBody], ToolBody]:
    """Turn every failure of a tool body into a typed outcome; tools never raise."""

    def describe(args: Any) -> str | None:
        try:
            return entity(args)
        except Exception:  # noqa: BLE001 - a malformed argument must not break error reporting
            return None

    def wrap(body: ToolBody) -> ToolBody:
        @functools.wraps(body)
        async def run(args: Any, ctx: ToolContext) -> ToolOutcome:
            try:
                return await body(args, ctx)
            except Refused as refused:
                return refused.outcome
            except EHRError as exc:
                error = _KIND_TO_ERROR[exc.kind]
                what = describe(args)
                message = None
                patient_id = getattr(args, "patient_id", None)
                if error is ToolErrorType.NOT_FOUND and patient_id:
                    what = patient_id.strip()
                    message = (
                        f"No patient with ID {what} was found in the electronic health record."
                    )
                return error_outcome(error, label, entity=what, detail=exc.detail, message=message)
            except Exception as exc:  # noqa: BLE001 - the last line of defence: tools never raise
                return unexpected_outcome(exc, label, describe(args))

        return run

    return wrap

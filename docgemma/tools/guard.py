"""The one failure boundary every tool sits behind: tools never raise into the graph.

``guarded`` wraps a tool body so that refused arguments, remote failures
(``ToolFailure``, and ``ServiceOffline`` for a tool with no offline source), EHR
failures (mapped from the client's error kinds) and bugs all end as a typed,
pre-formatted ``ToolOutcome`` whose raw detail stays out of the model's sight.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from docgemma.ehr.client import EHRError
from docgemma.tools.base import ToolContext, ToolErrorType, ToolOutcome
from docgemma.tools.http import (
    ServiceOffline,
    ToolFailure,
    error_outcome,
    failure_outcome,
    offline_outcome,
    unexpected_outcome,
)

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

ToolBody = Callable[[Any, ToolContext], Awaitable[ToolOutcome]]


class Refused(Exception):
    """A call the tool declines before doing any work; carries its outcome."""

    def __init__(self, outcome: ToolOutcome) -> None:
        super().__init__(outcome.formatted)
        self.outcome = outcome


def _ehr_outcome(exc: EHRError, label: str, args: Any, what: str | None) -> ToolOutcome:
    error = _KIND_TO_ERROR[exc.kind]
    message = None
    patient_id = getattr(args, "patient_id", None)
    if error is ToolErrorType.NOT_FOUND and patient_id:
        what = patient_id.strip()
        message = f"No patient with ID {what} was found in the electronic health record."
    return error_outcome(error, label, entity=what, detail=exc.detail, message=message)


def guarded(
    label: str, entity: Callable[[Any], str | None], *, service: str | None = None
) -> Callable[[ToolBody], ToolBody]:
    """Turn every failure of a tool body into a typed outcome.

    ``entity`` names what the call was about, for the messages; ``service`` is the
    remote source of a tool that has no offline fallback, so that an unreachable
    service is named in the result rather than reported as a generic outage.
    """

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
            except ToolFailure as failure:
                if service is not None and isinstance(failure, ServiceOffline):
                    return offline_outcome(label, service, describe(args), failure)
                return failure_outcome(failure, label, describe(args))
            except EHRError as exc:
                return _ehr_outcome(exc, label, args, describe(args))
            except Exception as exc:  # noqa: BLE001 - the last line of defence: tools never raise
                return unexpected_outcome(exc, label, describe(args))

        return run

    return wrap

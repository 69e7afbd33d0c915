"""What the EHR tools share: argument checks and the EHR client.

A refused argument raises ``Refused``; ``guard.guarded``, around each tool, turns it
and every EHR failure into a typed, pre-formatted outcome.
"""

from __future__ import annotations

from docgemma.ehr.client import EHRClient
from docgemma.ehr.ids import is_fhir_id
from docgemma.tools.base import ToolContext, ToolErrorType
from docgemma.tools.guard import Refused
from docgemma.tools.http import error_outcome


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
    if not is_fhir_id(pid):
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

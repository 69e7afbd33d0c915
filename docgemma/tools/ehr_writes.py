"""The three EHR writes: prescription, allergy and clinical note, each only when approved.

A write runs only with a clinician's approval in the tool context. It carries the
approval's idempotency key as an identifier and is created with FHIR conditional
create, so a retried or double-submitted approval finds the first write instead of
repeating it. Its Provenance (approver, time, session) goes in the same transaction,
so a write is never stored without the record of who approved it.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from docgemma.ehr import builders
from docgemma.ehr.chart import (
    concept_text,
    human_name,
    is_entered_in_error,
    medication_text,
    patient_of,
)
from docgemma.ehr.client import EHRClient, EHRError, idempotent_entry
from docgemma.ehr.ids import is_fhir_id
from docgemma.tools.args import AddAllergyArgs, ClinicalNoteArgs, PrescribeMedicationArgs
from docgemma.tools.base import Source, ToolContext, ToolErrorType, ToolOutcome
from docgemma.tools.ehr_guard import check_patient_id, ehr_client, require
from docgemma.tools.guard import Refused, guarded
from docgemma.tools.http import error_outcome

log = logging.getLogger(__name__)


async def _approved_write(
    ctx: ToolContext,
    label: str,
    patient_id: str,
    build: Callable[[str, str], dict[str, Any]],
    what: str,
) -> ToolOutcome:
    """The writes' shared path: approval gate, patient check, idempotent create, Provenance."""
    if not ctx.approved_by:
        return error_outcome(
            ToolErrorType.REJECTED_BY_CLINICIAN,
            label,
            entity=what,
            detail="no clinician approval in the tool context",
            message=(
                f"The {label} needs a clinician's approval before anything is written; "
                "nothing was saved."
            ),
        )
    pid = check_patient_id(label, patient_id)
    client = ehr_client(ctx)
    patient = await client.read("Patient", pid)
    key = ctx.idempotency_key or str(uuid.uuid4())
    if not ctx.idempotency_key:
        log.warning("%s approved without an idempotency key; a retry could write twice", label)
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    resource = build(pid, now)
    entries = _write_entries(resource, pid, ctx, key, now)
    retracted = ""
    if ctx.replaces:  # a correction: the entry it corrects is retracted in the same transaction
        earlier = await _retraction(client, ctx.replaces, resource["resourceType"], pid, label)
        entries.append(earlier)
        retracted = f" The earlier {_described(earlier['resource'])} is marked entered in error."
    (reference, created), (provenance, _), *_ = await client.transaction(entries)
    name = human_name(patient)
    verb = "saved to" if created else "was already saved to (duplicate approval ignored)"
    return ToolOutcome(
        data={
            "reference": reference,
            "created": created,
            "provenance": provenance,
            "patient_id": pid,
            "approved_by": ctx.approved_by,
            "replaced": ctx.replaces,
        },
        formatted=(
            f"{label} {verb} the record of {name} (ID {pid}): {what}. "
            f"Approved by {ctx.approved_by}.{retracted}"
        ),
        entity=what,
        sources=[Source(title=f"EHR {reference}", kind="ehr")],
    )


def _described(resource: dict[str, Any]) -> str:
    """An entry as the chart shows it: "atorvastatin 40 mg once daily", "allergy to latex"."""
    kind = resource.get("resourceType")
    if kind == "MedicationRequest":
        return medication_text(resource)
    if kind == "AllergyIntolerance":
        return f"allergy to {concept_text(resource.get('code'))}"
    return f"{resource.get('description') or 'note'} of {str(resource.get('date', ''))[:10]}"


async def _retraction(
    client: EHRClient, replaces: str, resource_type: str, pid: str, label: str
) -> dict[str, Any]:
    """The transaction entry that marks the corrected entry entered in error. It must be an
    entry of the same kind for the same patient: a correction never touches anything else,
    and when it cannot retract, nothing is written."""
    kind, _, rid = replaces.partition("/")
    try:
        earlier = await client.read(kind, rid) if kind == resource_type and is_fhir_id(rid) else {}
    except EHRError as exc:
        if exc.kind != "not_found":
            raise
        earlier = {}
    if patient_of(earlier) != pid or is_entered_in_error(earlier):
        what = _described(earlier) if earlier else "entry"
        raise Refused(
            error_outcome(
                ToolErrorType.INVALID_ARGS,
                label,
                entity=replaces,
                detail=f"{replaces} is not a current {resource_type} of patient {pid}",
                message=(
                    f"The {what} this {label.lower()} corrects is not one of this patient's, "
                    "is no longer in the record, or was already corrected; nothing was saved."
                ),
            )
        )
    return {
        "resource": builders.entered_in_error(earlier),
        "request": {"method": "PUT", "url": f"{kind}/{rid}"},
    }


def _write_entries(
    resource: dict[str, Any], pid: str, ctx: ToolContext, key: str, now: str
) -> list[dict[str, Any]]:
    """The resource and its Provenance as one transaction: both are stored, or neither.

    Both are conditional creates — the resource on its idempotency identifier, the
    Provenance on its target — so a retried approval yields exactly one of each.
    """
    placeholder = f"urn:uuid:{uuid.uuid4()}"
    record = builders.provenance(
        placeholder,
        pid,
        ctx.approved_by or "",
        now,
        session_id=ctx.session_id,
        idempotency_key=key,
        replaced=ctx.replaces,
    )
    return [
        {"fullUrl": placeholder, **idempotent_entry(resource, key)},
        {
            "resource": record,
            "request": {
                "method": "POST",
                "url": "Provenance",
                "ifNoneExist": f"target={placeholder}",
            },
        },
    ]


RX_LABEL = "Prescription"


@guarded(RX_LABEL, lambda a: a.medication_name.strip())
async def prescribe_medication(args: PrescribeMedicationArgs, ctx: ToolContext) -> ToolOutcome:
    require(
        RX_LABEL, medication_name=args.medication_name, dosage=args.dosage, frequency=args.frequency
    )
    med, dose, freq = args.medication_name.strip(), args.dosage.strip(), args.frequency.strip()
    route, duration = (args.route or "").strip() or None, (args.duration or "").strip() or None
    return await _approved_write(
        ctx,
        RX_LABEL,
        args.patient_id,
        lambda pid, now: builders.medication_request(
            pid,
            med,
            dose,
            freq,
            now,
            requester=ctx.approved_by,
            notes=(args.notes or "").strip() or None,
            route=route,
            duration=duration,
        ),
        f"{med} {builders.dosage_text(dose, freq, route, duration)}",
    )


ALLERGY_LABEL = "Allergy Documentation"


@guarded(ALLERGY_LABEL, lambda a: a.substance.strip())
async def add_allergy(args: AddAllergyArgs, ctx: ToolContext) -> ToolOutcome:
    require(ALLERGY_LABEL, substance=args.substance, reaction=args.reaction)
    severity = args.severity  # one of the vocabulary's values, or None: the schema says so
    substance, reaction = args.substance.strip(), args.reaction.strip()
    return await _approved_write(
        ctx,
        ALLERGY_LABEL,
        args.patient_id,
        lambda pid, now: builders.allergy_intolerance(
            pid, substance, reaction, severity, now, recorder=ctx.approved_by
        ),
        f"{substance} — {reaction}{f' ({severity})' if severity else ''}",
    )


NOTE_LABEL = "Clinical Note"


@guarded(NOTE_LABEL, lambda a: a.note_type.strip())
async def save_clinical_note(args: ClinicalNoteArgs, ctx: ToolContext) -> ToolOutcome:
    require(NOTE_LABEL, note_type=args.note_type, note_text=args.note_text)
    note_type, text = args.note_type.strip(), args.note_text.strip()
    return await _approved_write(
        ctx,
        NOTE_LABEL,
        args.patient_id,
        lambda pid, now: builders.clinical_note(pid, note_type, text, now, author=ctx.approved_by),
        f"{note_type} note ({len(text)} characters)",
    )

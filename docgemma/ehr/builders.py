"""Builders for the FHIR resources DocGemma writes, shared by the synthetic EHR and the tools.

One place decides how a prescription, an allergy or a clinical note is coded, so a
resource written through the assistant looks like the synthetic patients' own records.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from docgemma.ehr import codes as c

ALLERGY_SEVERITIES = ("mild", "moderate", "severe")


def _cc(system: str | None, code: str | None, display: str) -> dict[str, Any]:
    coding = [{"system": system, "code": code, "display": display}] if system and code else []
    return {"coding": coding, "text": display} if coding else {"text": display}


def _ref(patient_id: str) -> dict[str, str]:
    return {"reference": f"Patient/{patient_id}"}


def _with(resource: dict[str, Any], **optional: Any) -> dict[str, Any]:
    resource.update({k: v for k, v in optional.items() if v not in (None, [], {})})
    return resource


def dosage_text(dose: str, frequency: str, route: str | None, duration: str | None) -> str:
    """The dosage as the chart shows it: "500 mg oral three times daily for 7 days"."""
    text = " ".join(p for p in (dose, route, frequency) if p)
    return text + (f" for {duration.removeprefix('for ').strip()}" if duration else "")


def medication_request(
    patient_id: str,
    medication: str,
    dose: str,
    frequency: str,
    authored_on: str,
    *,
    id: str | None = None,
    identifier: list[dict[str, str]] | None = None,
    requester: str | None = None,
    notes: str | None = None,
    route: str | None = None,
    duration: str | None = None,
) -> dict[str, Any]:
    """An active order. ``route`` and ``duration`` as the prescriber gave them: in the dosage
    text, which is what the chart shows; the route is coded as well when it is a known one."""
    coded = c.rxnorm_for(medication)
    code = _cc(c.RXNORM, coded[0], coded[1]) if coded else _cc(None, None, medication.strip())
    route_code = c.ROUTES.get((route or "").strip().lower())
    dosage = _with(
        {"text": dosage_text(dose, frequency, route, duration)},
        route=_cc(c.SNOMED, *route_code) if route_code else None,
    )
    return _with(
        {
            "resourceType": "MedicationRequest",
            "status": "active",
            "intent": "order",
            "medicationCodeableConcept": code,
            "subject": _ref(patient_id),
            "authoredOn": authored_on,
            "dosageInstruction": [dosage],
        },
        id=id,
        identifier=identifier,
        requester={"display": requester} if requester else None,
        note=[{"text": notes}] if notes else None,
    )


def allergy_intolerance(
    patient_id: str,
    substance: str,
    reaction: str,
    severity: str | None,
    recorded: str,
    *,
    id: str | None = None,
    identifier: list[dict[str, str]] | None = None,
    recorder: str | None = None,
) -> dict[str, Any]:
    key = substance.strip().lower()
    if key in c.SNOMED_SUBSTANCES:
        code = _cc(c.SNOMED, *c.SNOMED_SUBSTANCES[key])
    elif coded := c.rxnorm_for(key):
        code = _cc(c.RXNORM, *coded)
    else:
        code = _cc(None, None, substance.strip())
    manifestation = {"manifestation": [{"text": reaction}]}
    if severity:
        manifestation["severity"] = severity
    return _with(
        {
            "resourceType": "AllergyIntolerance",
            "clinicalStatus": {"coding": [{"system": c.ALLERGY_CLINICAL, "code": "active"}]},
            "verificationStatus": {
                "coding": [{"system": c.ALLERGY_VERIFICATION, "code": "confirmed"}]
            },
            "code": code,
            "patient": _ref(patient_id),
            "recordedDate": recorded,
            "reaction": [manifestation],
        },
        id=id,
        identifier=identifier,
        recorder={"display": recorder} if recorder else None,
    )


def clinical_note(
    patient_id: str,
    note_type: str,
    text: str,
    when: str,
    *,
    id: str | None = None,
    identifier: list[dict[str, str]] | None = None,
    author: str | None = None,
) -> dict[str, Any]:
    loinc = c.NOTE_TYPES.get(note_type.strip().lower())
    doc_type = _cc(c.LOINC, *loinc) if loinc else _cc(None, None, note_type.strip())
    title = loinc[1] if loinc else note_type.strip()
    return _with(
        {
            "resourceType": "DocumentReference",
            "status": "current",
            "type": doc_type,
            "subject": _ref(patient_id),
            "date": when,
            "description": title,
            "content": [
                {
                    "attachment": {
                        "contentType": "text/plain; charset=utf-8",
                        "data": base64.b64encode(text.encode()).decode(),
                        "title": title,
                    }
                }
            ],
        },
        id=id,
        identifier=identifier,
        author=[{"display": author}] if author else None,
    )


def session_reference(session_id: str) -> str:
    """A one-way name for a conversation: the thread id is a secret and never leaves the app."""
    return hashlib.sha256(f"docgemma-session:{session_id}".encode()).hexdigest()[:32]


def provenance(
    target: str,
    patient_id: str,
    approver: str,
    recorded: str,
    *,
    session_id: str | None,
    idempotency_key: str,
    replaced: str | None = None,
) -> dict[str, Any]:
    """Who approved a write and when: the clinician verifies, the assistant drafted.

    The session appears only as ``session_reference``: it groups one conversation's
    writes for an audit, but cannot be turned back into the thread id. ``replaced``: the
    entry a correction marked entered in error, a target too, so the audit shows who
    took it back.
    """
    participant = "http://terminology.hl7.org/CodeSystem/provenance-participant-type"
    entity = [
        {
            "role": "source",
            "what": {"identifier": {"system": c.IDEMPOTENCY_SYSTEM, "value": idempotency_key}},
        }
    ]
    if session_id:
        entity.append(
            {
                "role": "source",
                "what": {
                    "identifier": {
                        "system": c.SESSION_SYSTEM,
                        "value": session_reference(session_id),
                    }
                },
            }
        )
    if replaced:
        entity.append({"role": "removal", "what": {"reference": replaced}})
    return {
        "resourceType": "Provenance",
        "target": [
            {"reference": target},
            _ref(patient_id),
            *([{"reference": replaced}] if replaced else []),
        ],
        "recorded": recorded,
        "activity": _cc(
            "http://terminology.hl7.org/CodeSystem/v3-DataOperation", "CREATE", "create"
        ),
        "agent": [
            {"type": _cc(participant, "verifier", "Verifier"), "who": {"display": approver}},
            {
                "type": _cc(participant, "assembler", "Assembler"),
                "who": {"display": "DocGemma assistant"},
            },
        ],
        "entity": entity,
    }


def entered_in_error(resource: dict[str, Any]) -> dict[str, Any]:
    """The resource marked entered in error: kept in the record for its history, no longer
    read as the patient's (a corrected entry takes its place). FHIR says an allergy so
    marked carries no clinical status."""
    marked = {k: v for k, v in resource.items() if k != "meta"}
    kind = resource.get("resourceType")
    if kind == "AllergyIntolerance":
        marked.pop("clinicalStatus", None)
        marked["verificationStatus"] = {
            "coding": [{"system": c.ALLERGY_VERIFICATION, "code": "entered-in-error"}]
        }
    elif kind in ("MedicationRequest", "DocumentReference"):
        marked["status"] = "entered-in-error"
    else:
        raise ValueError(f"{kind} is not a resource DocGemma writes")
    return marked

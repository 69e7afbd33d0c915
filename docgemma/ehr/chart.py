"""A clinician-readable chart summary built from raw FHIR resources.

The model and the clinician see this compact summary, never raw FHIR: demographics,
active problems and medications, allergies, the latest value of each lab and vital
sign, recent imaging and the last notes.
"""

from __future__ import annotations

import base64
import binascii
from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from docgemma.ehr.codes import RATE_UNITS_BY_LOINC
from docgemma.ehr.units import readable_unit

NOTE_EXCERPT_CHARS = 300


class Measurement(BaseModel):
    name: str
    value: str
    date: str
    code: str | None = None


class NoteExcerpt(BaseModel):
    date: str
    title: str
    excerpt: str


MEDICATIONS_HEADING = "Active medications"
"""The heading of the chart text's medication line, which the agent reads the list from."""
PROBLEMS_HEADING = "Active problems"
ALLERGIES_HEADING = "Allergies"
LABS_HEADING = "Latest labs"
VITALS_HEADING = "Latest vitals"
ITEM_SEPARATOR = "; "
"""Between the items of one heading's line."""


class ChartSummary(BaseModel):
    patient_id: str
    name: str
    gender: str | None = None
    birth_date: str | None = None
    age: int | None = None
    mrn: str | None = None
    conditions: list[str] = Field(default_factory=list)
    medications: list[str] = Field(default_factory=list)
    allergies: list[str] = Field(default_factory=list)
    labs: list[Measurement] = Field(default_factory=list)
    vitals: list[Measurement] = Field(default_factory=list)
    imaging: list[str] = Field(default_factory=list)
    notes: list[NoteExcerpt] = Field(default_factory=list)

    def text(self) -> str:
        demo = ", ".join(
            p
            for p in (
                f"{self.age} y" if self.age is not None else None,
                self.gender,
                f"born {self.birth_date}" if self.birth_date else None,
                f"MRN {self.mrn}" if self.mrn else None,
            )
            if p
        )
        lines = [f"Patient: {self.name} (ID {self.patient_id}){' — ' + demo if demo else ''}"]

        def section(title: str, items: list[str]) -> None:
            lines.append(f"{title}: " + (ITEM_SEPARATOR.join(items) or "none recorded"))

        section(PROBLEMS_HEADING, self.conditions)
        section(MEDICATIONS_HEADING, self.medications)
        section(ALLERGIES_HEADING, self.allergies or [])
        section(LABS_HEADING, [f"{m.name} {m.value} ({m.date})" for m in self.labs])
        section(VITALS_HEADING, [f"{m.name} {m.value} ({m.date})" for m in self.vitals])
        if self.imaging:
            section("Imaging", self.imaging)
        for n in self.notes:
            lines.append(f"Note {n.date} ({n.title}): {n.excerpt}")
        return "\n".join(lines)


def concept_text(concept: dict[str, Any] | None) -> str:
    """The human-readable text of a CodeableConcept."""
    if not concept:
        return "unspecified"
    if concept.get("text"):
        return concept["text"]
    for coding in concept.get("coding", []):
        if coding.get("display") or coding.get("code"):
            return coding.get("display") or coding["code"]
    return "unspecified"


def _codes(concept: dict[str, Any] | None) -> list[str]:
    return [c.get("code", "") for c in (concept or {}).get("coding", [])]


def _status(concept: dict[str, Any] | None) -> str | None:
    codes = _codes(concept)
    return codes[0] if codes else None


_PATIENT_FIELD = {
    "MedicationRequest": "subject",
    "AllergyIntolerance": "patient",
    "DocumentReference": "subject",
}
"""Where each resource DocGemma writes names its patient."""


def patient_of(resource: dict[str, Any]) -> str | None:
    """The id of the patient a written resource belongs to, or None."""
    reference = (resource.get(_PATIENT_FIELD.get(resource.get("resourceType", ""), "")) or {}).get(
        "reference", ""
    )
    return reference.removeprefix("Patient/") if reference.startswith("Patient/") else None


def is_entered_in_error(resource: dict[str, Any]) -> bool:
    if resource.get("status") == "entered-in-error":
        return True
    codes = (resource.get("verificationStatus") or {}).get("coding") or []
    return any(coding.get("code") == "entered-in-error" for coding in codes)


def human_name(patient: dict[str, Any]) -> str:
    for name in patient.get("name", []):
        if name.get("text"):
            return name["text"]
        parts = [*name.get("given", []), name.get("family", "")]
        if any(parts):
            return " ".join(p for p in parts if p)
    return "(no name)"


def age_on(birth_date: str | None, today: date) -> int | None:
    if not birth_date or len(birth_date) < 10:
        return None
    born = date.fromisoformat(birth_date[:10])
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


def _unit(q: dict[str, Any]) -> str:
    """The unit of a Quantity as a clinician reads it.

    ``unit`` should be readable already, but servers often copy the UCUM code into it, so
    it is translated like ``code``, which stands in when ``unit`` is missing.
    """
    return readable_unit(q.get("unit") or q.get("code") or "")


def _with_unit(value: str, unit: str) -> str:
    """ "7.2%" as clinicians write a percentage, "37.0 °C" and "88 beats/min" spaced."""
    return f"{value}{unit}" if unit == "%" else f"{value} {unit}".strip()


def _observation_value(obs: dict[str, Any]) -> str:
    if "valueQuantity" in obs:
        q = obs["valueQuantity"]
        # a rate's UCUM code is a bare "/min" (Synthea copies it into ``unit``): "88 /min"
        rate = next(filter(None, map(RATE_UNITS_BY_LOINC.get, _codes(obs.get("code")))), None)
        return _with_unit(str(q.get("value")), rate or _unit(q))
    if obs.get("component"):
        quantities = [c.get("valueQuantity", {}) for c in obs["component"]]
        values = "/".join(str(q.get("value", "?")) for q in quantities)
        return _with_unit(values, _unit(quantities[0]))
    for key in ("valueString", "valueInteger", "valueBoolean"):
        if key in obs:
            return str(obs[key])
    if "valueCodeableConcept" in obs:
        return concept_text(obs["valueCodeableConcept"])
    return "no value"


def latest_by_code(observations: list[dict[str, Any]]) -> list[Measurement]:
    """The most recent observation of each code, newest first."""
    latest: dict[str, dict[str, Any]] = {}
    for obs in observations:
        key = (_codes(obs.get("code")) or [concept_text(obs.get("code"))])[0]
        when = obs.get("effectiveDateTime", "")
        if key not in latest or when > latest[key].get("effectiveDateTime", ""):
            latest[key] = obs
    ordered = sorted(latest.values(), key=lambda o: o.get("effectiveDateTime", ""), reverse=True)
    return [
        Measurement(
            name=concept_text(o.get("code")),
            value=_observation_value(o),
            date=o.get("effectiveDateTime", "")[:10],
            code=(_codes(o.get("code")) or [None])[0],
        )
        for o in ordered
    ]


def medication_text(req: dict[str, Any]) -> str:
    """A medication order as the chart shows it: "atorvastatin 40 mg once daily"."""
    dose = "; ".join(d.get("text", "") for d in req.get("dosageInstruction", []) if d.get("text"))
    name = concept_text(req.get("medicationCodeableConcept"))
    return f"{name} {dose}".strip()


def _allergy(a: dict[str, Any]) -> str:
    details = []
    for reaction in a.get("reaction", []):
        details += [concept_text(m) for m in reaction.get("manifestation", [])]
        if reaction.get("severity"):
            details.append(reaction["severity"])
    text = concept_text(a.get("code"))
    return f"{text} ({', '.join(details)})" if details else text


def _note(doc: dict[str, Any]) -> NoteExcerpt:
    text = ""
    for content in doc.get("content", []):
        data = content.get("attachment", {}).get("data")
        if data:
            try:
                text = base64.b64decode(data).decode("utf-8", errors="replace")
            except (binascii.Error, ValueError):
                text = "(unreadable note content)"
            break
    if len(text) > NOTE_EXCERPT_CHARS:
        text = text[:NOTE_EXCERPT_CHARS].rsplit(" ", 1)[0] + " …"
    title = doc.get("description") or concept_text(doc.get("type"))
    return NoteExcerpt(date=str(doc.get("date", ""))[:10], title=title, excerpt=text or "(no text)")


def _report(report: dict[str, Any]) -> str:
    when = str(report.get("effectiveDateTime", ""))[:10]
    return f"{when} {concept_text(report.get('code'))}: {report.get('conclusion', 'no conclusion')}"


def _active(resource: dict[str, Any], field: str) -> bool:
    return _status(resource.get(field)) in (None, "active", "recurrence", "relapse")


def is_current_allergy(resource: dict[str, Any]) -> bool:
    """An allergy the patient has: active (or of no stated status), not entered in error."""
    return _active(resource, "clinicalStatus") and not is_entered_in_error(resource)


def build_summary(
    patient: dict[str, Any],
    *,
    conditions: list[dict[str, Any]],
    medications: list[dict[str, Any]],
    allergies: list[dict[str, Any]],
    observations: list[dict[str, Any]],
    notes: list[dict[str, Any]],
    reports: list[dict[str, Any]],
    today: date | None = None,
) -> ChartSummary:
    labs = [o for o in observations if "laboratory" in _codes_of_categories(o)]
    vitals = [o for o in observations if "vital-signs" in _codes_of_categories(o)]
    mrn = next((i.get("value") for i in patient.get("identifier", []) if i.get("value")), None)
    return ChartSummary(
        patient_id=patient["id"],
        name=human_name(patient),
        gender=patient.get("gender"),
        birth_date=patient.get("birthDate"),
        age=age_on(patient.get("birthDate"), today or date.today()),
        mrn=mrn,
        conditions=[
            concept_text(c.get("code")) for c in conditions if _active(c, "clinicalStatus")
        ],
        medications=[
            medication_text(m) for m in medications if m.get("status") in (None, "active")
        ],
        allergies=[_allergy(a) for a in allergies if is_current_allergy(a)],
        labs=latest_by_code(labs),
        vitals=latest_by_code(vitals),
        imaging=[_report(r) for r in reports],
        notes=[_note(n) for n in notes if not is_entered_in_error(n)],
    )


def _codes_of_categories(obs: dict[str, Any]) -> list[str]:
    return [code for cat in obs.get("category", []) for code in _codes(cat)]

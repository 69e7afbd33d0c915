"""The five EHR tools: patient search, chart review and the three approved writes.

Reads and writes go through ``docgemma.ehr.client.EHRClient`` (FHIR R4 over HTTP); the
writes live in ``ehr_writes``. Descriptions are given in full (full descriptions chose tools best).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docgemma.ehr.chart import human_name
from docgemma.tools.args import (
    AddAllergyArgs,
    ClinicalNoteArgs,
    PatientChartArgs,
    PatientSearchArgs,
    PrescribeMedicationArgs,
)
from docgemma.tools.base import (
    Source,
    ToolContext,
    ToolErrorType,
    ToolExample,
    ToolOutcome,
    ToolSpec,
)
from docgemma.tools.ehr_guard import check_patient_id, ehr_client, require
from docgemma.tools.ehr_writes import (
    ALLERGY_LABEL,
    NOTE_LABEL,
    RX_LABEL,
    add_allergy,
    prescribe_medication,
    save_clinical_note,
)
from docgemma.tools.facts import RequestPattern, ToolRole
from docgemma.tools.guard import guarded
from docgemma.tools.http import error_outcome
from docgemma.tools.rx_check import review_prescription

__all__ = [
    "EHR_TOOLS",
    "add_allergy",
    "get_patient_chart",
    "prescribe_medication",
    "save_clinical_note",
    "search_patient",
]

MAX_CANDIDATES = 10
PATIENT_REVIEW = RequestPattern(
    "patient_lookup_and_review",
    all_of=(
        ("patient", "his", "her", "their"),
        ("chart", "record", "summary", "medication", "med", "allergy", "allergies", "lab"),
    ),
)
"""A question about a patient's record asks for the search (by name) and the chart together."""


def _candidate(patient: dict[str, Any]) -> dict[str, Any]:
    mrn = next((i.get("value") for i in patient.get("identifier", []) if i.get("value")), None)
    return {
        "patient_id": patient["id"],
        "name": human_name(patient),
        "birth_date": patient.get("birthDate"),
        "gender": patient.get("gender"),
        "mrn": mrn,
    }


def describe_patient(c: Mapping[str, Any]) -> str:
    """A found patient as the clinician tells them apart: name, ID, birth date, sex, MRN."""
    details = ", ".join(
        p
        for p in (
            f"born {c['birth_date']}" if c["birth_date"] else None,
            c["gender"],
            f"MRN {c['mrn']}" if c["mrn"] and c["mrn"] != c["patient_id"] else None,
        )
        if p
    )
    return f"{c['name']} (ID {c['patient_id']}{', ' + details if details else ''})"


_PRONOUNS = {"female": ("her", "her"), "male": ("his", "him")}


def next_steps(c: Mapping[str, Any]) -> str:
    """What the clinician can do with a patient just found, in words the agent understands."""
    whose, whom = _PRONOUNS.get(str(c.get("gender")), ("their", "them"))
    return (
        f"You can now ask for {whose} chart, medications, allergies or latest labs, or "
        f"prescribe, record an allergy or save a note for {whom}."
    )


NOT_FOUND_OFFER = (
    "You can search again by family name or first name alone, give the patient's ID, or "
    "select them in the patient panel."
)
"""Offered when a name finds no one: the other ways to find the patient."""


# ── search_patient ──
SEARCH_LABEL = "Patient Search"


@guarded(SEARCH_LABEL, lambda a: a.name.strip())
async def search_patient(args: PatientSearchArgs, ctx: ToolContext) -> ToolOutcome:
    name = " ".join(args.name.split())
    require(SEARCH_LABEL, name=name)
    candidates = [_candidate(p) for p in await ehr_client(ctx).search_patients(name)]
    if not candidates:
        return error_outcome(
            ToolErrorType.NOT_FOUND,
            SEARCH_LABEL,
            entity=name,
            detail=f"no Patient matches {name!r}",
            message=f"No patient named {name} was found in the electronic health record. "
            + NOT_FOUND_OFFER,
        )
    if len(candidates) > 1:
        shown = candidates[:MAX_CANDIDATES]
        more = f" and {len(candidates) - len(shown)} more" if len(candidates) > len(shown) else ""
        return ToolOutcome(
            data={"candidates": shown},
            error_type=ToolErrorType.MULTIPLE_PATIENT_MATCHES,
            entity=name,
            patient_matches=len(candidates),
            error_detail=f"{len(candidates)} patients match {name!r}",
            suggestions=[describe_patient(c) for c in shown] + ([more.strip()] if more else []),
            formatted=(
                f"{len(candidates)} patients match {name}: "
                + "; ".join(map(describe_patient, shown))
                + more
                + ". Which patient is meant (date of birth or ID)?"
            ),
        )
    match = candidates[0]
    return ToolOutcome(
        data=match,
        patient_matches=1,
        entity=name,
        formatted=f"One patient found: {describe_patient(match)}. {next_steps(match)}",
        sources=[Source(title=f"EHR patient record {match['patient_id']}", kind="ehr")],
    )


# ── get_patient_chart ──
CHART_LABEL = "Patient Record"


@guarded(CHART_LABEL, lambda a: a.patient_id.strip())
async def get_patient_chart(args: PatientChartArgs, ctx: ToolContext) -> ToolOutcome:
    pid = check_patient_id(CHART_LABEL, args.patient_id)
    summary = await ehr_client(ctx).chart(pid)
    return ToolOutcome(
        data=summary.model_dump(mode="json"),
        formatted=summary.text(),
        entity=pid,
        sources=[Source(title=f"EHR chart of {summary.name} ({pid})", kind="ehr")],
    )


EHR_TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="search_patient",
        label=SEARCH_LABEL,
        args=PatientSearchArgs,
        run=search_patient,
        description=(
            "Search the electronic health record system for a patient by name. Returns matching "
            "patient IDs and basic demographics. Use when a clinician mentions a patient by name "
            "and needs to look them up."
        ),
        short_description="Find a patient in the EHR by name; returns IDs and demographics.",
        example=ToolExample("Find patient John Smith", {"name": "John Smith"}),
        role=ToolRole.FINDS_PATIENT,
        requested_by=(PATIENT_REVIEW,),
    ),
    ToolSpec(
        name="get_patient_chart",
        label=CHART_LABEL,
        args=PatientChartArgs,
        run=get_patient_chart,
        description=(
            "Retrieve the full clinical summary for a patient, including diagnoses, medications, "
            "allergies, lab results, and vitals. Requires a patient ID (not a name). Use when a "
            "clinician wants to review a patient's record."
        ),
        short_description="A patient's chart summary by patient ID.",
        example=ToolExample("Show me the chart for patient abc-123", {"patient_id": "abc-123"}),
        role=ToolRole.READS_CHART,
        needs_patient=True,
        requested_by=(PATIENT_REVIEW,),
    ),
    ToolSpec(
        name="prescribe_medication",
        label=RX_LABEL,
        args=PrescribeMedicationArgs,
        run=prescribe_medication,
        writes_ehr=True,
        description=(
            "Create a new medication order for a patient in the EHR. Use when a clinician wants "
            "to prescribe, order, or start a medication for a specific patient."
        ),
        short_description="Order a medication for a patient (needs approval).",
        example=ToolExample(
            "Start metformin 500 mg twice daily for patient abc-123",
            {
                "patient_id": "abc-123",
                "medication_name": "metformin",
                "dosage": "500 mg",
                "frequency": "twice daily",
            },
        ),
        needs_patient=True,
        summary_fields=("medication_name", "dosage", "route", "frequency", "duration"),
        review=review_prescription,
        requested_by=(
            RequestPattern(
                "prescribe",
                any_of=(
                    "prescribe",
                    "start",
                    "order",
                    # a new dose of a drug is a new order ("Change the dose of her
                    # metoprolol to 25 mg"), not a note holding the words of one
                    "change the dose",
                    "increase the dose",
                    "reduce the dose",
                    "decrease the dose",
                ),
            ),
        ),
    ),
    ToolSpec(
        name="add_allergy",
        label=ALLERGY_LABEL,
        args=AddAllergyArgs,
        run=add_allergy,
        writes_ehr=True,
        description=(
            "Document an allergy or adverse reaction in a patient's record. Use when a clinician "
            "wants to record, document, or note an allergy."
        ),
        short_description="Record an allergy for a patient (needs approval).",
        example=ToolExample(
            "Patient abc-123 gets hives from penicillin, moderate",
            {
                "patient_id": "abc-123",
                "substance": "penicillin",
                "reaction": "hives",
                "severity": "moderate",
            },
        ),
        needs_patient=True,
        summary_fields=("substance", "reaction", "severity"),
    ),
    ToolSpec(
        name="save_clinical_note",
        label=NOTE_LABEL,
        args=ClinicalNoteArgs,
        run=save_clinical_note,
        writes_ehr=True,
        description=(
            "Save a clinical note (progress note, consult note, procedure note, etc.) to a "
            "patient's record. Use when a clinician wants to write, save, or document a clinical "
            "note."
        ),
        short_description="Save a clinical note to a patient's record (needs approval).",
        example=ToolExample(
            "Save a progress note for abc-123: BP controlled, continue lisinopril",
            {
                "patient_id": "abc-123",
                "note_type": "progress",
                "note_text": "BP controlled, continue lisinopril.",
            },
        ),
        needs_patient=True,
        summary_fields=("note_type",),
    ),
]

"""Argument values are compared with what the clinician gave, the way each field declares."""

from __future__ import annotations

from typing import Any

import pytest

from docgemma.agent.grounding import Evidence, canonical, ground_args, grounded
from docgemma.tools.grounding import Grounding
from docgemma.tools.registry import build_registry


def evidence(query: str, **state: Any) -> Evidence:
    return Evidence.of({"user_query": query, **state})


@pytest.mark.parametrize(
    ("kind", "value", "query"),
    [
        (Grounding.PHRASE, "Maria Garcia", "Find patient maria  garcia's chart"),
        (Grounding.PHRASE, "500 mg", "Prescribe metformin 500mg for abc-123"),
        (Grounding.PHRASE, "twice daily", "metformin 500 mg BID for abc-123"),
        # the dictionary's name for the drug the clinician typed
        (Grounding.PHRASE, "penicillins", "Record a penicillin allergy for rpatel-003"),
        (Grounding.DRUG, "acetaminophen", "Is Tylenol safe with alcohol?"),  # brand → generic
        (Grounding.DRUG, "Warfarin", "check WARFARIN warnings"),
        (Grounding.LOOSE, "SGLT2 inhibitors heart failure", "latest research on SGLT2 in HF"),
        (Grounding.LOOSE, "type 2 diabetes", "any recruiting trials for diabetic patients?"),
        (Grounding.PATIENT_ID, "abc-123", "Write a note for ABC-123"),
        (Grounding.FREE, "Patient stable, continue plan.", "Write a note for abc-123"),
    ],
)
def test_values_the_clinician_gave_are_grounded(kind: Grounding, value: str, query: str) -> None:
    assert grounded(kind, value, evidence(query))


@pytest.mark.parametrize(
    ("kind", "value", "query"),
    [
        (Grounding.PHRASE, "patient_name", "What is the potassium of the patient?"),
        (Grounding.PHRASE, "the patient", "Look up the patient"),
        (Grounding.PHRASE, "John Doe", "Find the patient with diabetes"),
        (Grounding.PHRASE, "twice daily", "Prescribe metformin 500 mg for abc-123"),
        (Grounding.PHRASE, "penicillamine", "Record a penicillin allergy for rpatel-003"),
        (Grounding.PHRASE, "amoxicillin", "Record a penicillin allergy for rpatel-003"),
        (Grounding.DRUG, "metformin", "Check interactions between this drug and warfarin"),
        (Grounding.DRUG, "drug_name", "Check FDA warnings"),
        (Grounding.DRUG, "atrial fibrillation", "Dofetilide warnings in atrial fibrillation?"),
        (Grounding.LOOSE, "latest studies", "Find me some studies"),
        (Grounding.PATIENT_ID, "12345", "Pull up the chart"),
    ],
)
def test_placeholders_and_guesses_are_not(kind: Grounding, value: str, query: str) -> None:
    assert not grounded(kind, value, evidence(query))


def test_the_conversation_the_active_patient_and_this_turns_results_count() -> None:
    state = {
        "conversation_history": [{"role": "user", "content": "Tell me about lisinopril"}],
        "active_patient_id": "pat-7",
        "patient_summary": "Allergies: penicillin. Medications: apixaban 5 mg.",
        "tool_results": [
            {
                "formatted_result": "Found: James Wilson, ID jw-1972",
                "error_type": None,
                "result": {"patients": [{"id": "jw-1972"}]},
                "patient_matches": 1,
            },
        ],
    }
    found = evidence("Check its warnings", **state)
    assert grounded(Grounding.DRUG, "lisinopril", found)
    assert grounded(Grounding.DRUG, "apixaban", found)
    assert grounded(Grounding.PATIENT_ID, "pat-7", found)
    assert grounded(Grounding.PATIENT_ID, "jw-1972", found)
    assert grounded(Grounding.PHRASE, "penicillin", found)


def test_a_failed_result_is_not_evidence() -> None:
    state = {
        "tool_results": [
            {
                "formatted_result": "No patient named Zed",
                "error_type": "not_found",
                "result": {},
                "patient_matches": None,
            }
        ]
    }
    assert not grounded(Grounding.PHRASE, "Zed", evidence("Look him up", **state))


def test_required_fields_are_asked_for_and_optional_ones_dropped() -> None:
    verdict = ground_args(
        build_registry()["add_allergy"].args,
        {"patient_id": "abc-123", "substance": "sulfa", "reaction": "rash", "severity": "severe"},
        evidence("Add a penicillin allergy with hives to abc-123"),
    )
    assert verdict.missing == ["substance", "reaction"]


def test_dosing_abbreviations_read_as_their_spelled_out_form() -> None:
    assert canonical("Metformin 500 mg B.I.D.") == "metformin 500 mg twice daily"
    assert canonical("2.5 mg q.d.") == "2 5 mg once daily"
    assert canonical("500 mg bid, qhs") == "500 mg twice daily at bedtime"


INTERACTIONS = build_registry()["check_drug_interactions"].args
ASKED = "Check dofetilide with azithromycin, and trials in atrial fibrillation."


@pytest.mark.parametrize(
    ("drugs", "kept", "left_out"),
    [
        (
            ["dofetilide", "azithromycin", "atrial fibrillation"],
            ["dofetilide", "azithromycin"],
            ["atrial fibrillation"],
        ),
        (["dofetilide", "azithromycin", "warfarin"], ["dofetilide", "azithromycin"], ["warfarin"]),
    ],
    ids=["a-condition", "a-drug-nobody-named"],
)
def test_a_drug_list_keeps_its_grounded_items(
    drugs: list[str], kept: list[str], left_out: list[str]
) -> None:
    verdict = ground_args(INTERACTIONS, {"drug_names": drugs}, evidence(ASKED))
    assert verdict.args == {"drug_names": kept} and verdict.pruned == {"drug_names": left_out}
    assert not verdict.missing and not verdict.dropped


def test_a_drug_list_too_short_without_its_ungrounded_items_is_asked_for() -> None:
    verdict = ground_args(
        INTERACTIONS, {"drug_names": ["dofetilide", "atrial fibrillation"]}, evidence(ASKED)
    )
    assert verdict.missing == ["drug_names"] and not verdict.pruned


def test_a_prescription_note_is_kept_only_in_the_clinicians_own_words() -> None:
    """Seen in the app: the notes of a metformin prescription were the patient's problem list
    from the loaded chart, cut to "penicillin (hiv"."""
    schema = build_registry()["prescribe_medication"].args
    args = {
        "patient_id": "abc-123",
        "medication_name": "metformin",
        "dosage": "500 mg",
        "frequency": "twice daily",
    }
    chart = {"active_patient_id": "abc-123", "patient_summary": "Hypertension; penicillin (hives)"}
    copied = {**args, "notes": "Hypertension; penicillin (hiv"}
    verdict = ground_args(schema, copied, evidence("Prescribe metformin 500 mg BID", **chart))
    assert verdict.dropped == ["notes"] and "notes" not in verdict.args
    typed = {**args, "notes": "take it with food"}
    query = "Prescribe metformin 500 mg BID; she should take it with food"
    assert ground_args(schema, typed, evidence(query, **chart)).args == typed
    shortened = {**args, "notes": "Take with food"}  # not the clinician's run: dropped here,
    assert ground_args(schema, shortened, evidence(query, **chart)).dropped == ["notes"]

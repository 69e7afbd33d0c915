"""A declined write asked for again, or a write corrected: which replies ask for it, and
what they change."""

from __future__ import annotations

import pytest

from docgemma.agent.amendment import (
    MAX_TURNS_AFTER,
    addition,
    amended,
    asks_again,
    corrects,
    declined_write,
    doses,
    saved_write,
    still_meant,
)
from docgemma.tools.registry import build_registry

REGISTRY = build_registry()
NOTE = REGISTRY["save_clinical_note"]
RX = REGISTRY["prescribe_medication"]
DECLINED_NOTE = declined_write(
    NOTE,
    {
        "patient_id": "abc-123",
        "note_type": "progress",
        "note_text": "Switched from metformin to empagliflozin 10 mg daily; GFR 38",
    },
    turn=2,
)
DECLINED_RX = declined_write(
    RX,
    {
        "patient_id": "abc-123",
        "medication_name": "amoxicillin",
        "dosage": "500 mg",
        "frequency": "three times daily",
        "duration": "7 days",
    },
    turn=2,
)


@pytest.mark.parametrize(
    "message",
    [
        "Save it again with 'Recheck U&E in one week' added",
        "save the note again and add: recheck U&E in one week",
        "Same note, but add that she was counselled on sick-day rules",
        "Resubmit it as a consult note",
        'Add "review in 2 weeks" to the note and save',
        "ok, propose it again",
        "Same order but twice daily",
    ],
)
def test_replies_that_ask_for_the_card_again(message: str) -> None:
    assert asks_again(message)


@pytest.mark.parametrize(
    "message",
    [
        "What is her eGFR again?",
        "Save a progress note: BP controlled, continue lisinopril",
        "Add a note for her: wound healing well",
        "Thanks, that's all",
        "Prescribe amoxicillin 500 mg three times daily",
        "Do the same for Mr Patel?",
    ],
)
def test_other_messages_do_not(message: str) -> None:
    assert not asks_again(message)


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("Save it again with 'Recheck U&E in one week' added", "Recheck U&E in one week"),
        ("Save it again with recheck U&E in one week added", "recheck U&E in one week"),
        ("save the note again and add: recheck U&E in one week", "recheck U&E in one week"),
        ("Same note, but add that she was counselled", "she was counselled"),
        ("Add review in 2 weeks to the note and save it again", "review in 2 weeks"),
        ("Save it again adding the patient's wife was present", "the patient's wife was present"),
        ("Resubmit it as a consult note", None),
    ],
)
def test_the_added_words_are_the_clinicians_as_typed(message: str, words: str | None) -> None:
    assert addition(message) == words


def test_a_note_keeps_its_text_and_gains_the_addition() -> None:
    args = amended(NOTE, DECLINED_NOTE, "Save it again with 'Recheck U&E in one week.' added")
    assert args == {
        **DECLINED_NOTE["args"],
        "note_text": "Switched from metformin to empagliflozin 10 mg daily; GFR 38. "
        "Recheck U&E in one week.",
    }


def test_a_stated_closed_field_changes_and_nothing_else() -> None:
    args = amended(NOTE, DECLINED_NOTE, "Resubmit it as a consult note")
    assert args == {**DECLINED_NOTE["args"], "note_type": "consult"}


def test_an_addition_is_not_read_for_closed_fields() -> None:
    """ "procedure" inside the added words is what the note says, not its type."""
    args = amended(NOTE, DECLINED_NOTE, "Save it again with 'procedure explained' added")
    assert args["note_type"] == "progress"
    assert args["note_text"].endswith("GFR 38. procedure explained")


def test_a_prescription_takes_a_new_frequency_and_duration() -> None:
    args = amended(RX, DECLINED_RX, "Same order but twice daily for 5 days")
    assert args == {**DECLINED_RX["args"], "frequency": "twice daily", "duration": "for 5 days"}


def test_asking_again_without_a_change_gives_the_same_card() -> None:
    assert amended(NOTE, DECLINED_NOTE, "Save it again") == DECLINED_NOTE["args"]


def test_only_a_recent_rejection_is_meant_by_again() -> None:
    assert still_meant(DECLINED_NOTE, 3)
    assert still_meant(DECLINED_NOTE, 2 + MAX_TURNS_AFTER)
    assert not still_meant(DECLINED_NOTE, 3 + MAX_TURNS_AFTER)


SAVED_RX = saved_write(
    RX,
    {
        "patient_id": "abc-123",
        "medication_name": "atorvastatin",
        "dosage": "40 mg",
        "frequency": "once daily",
        "route": "oral",
    },
    turn=3,
    reference="MedicationRequest/rx-1",
)


@pytest.mark.parametrize(
    "message",
    [
        "Correction: make that atorvastatin 20 mg nightly.",
        "Sorry, change it to 20 mg",
        "make it twice daily",
        "I meant 20 mg",
        "It should have been 20 mg.",
        "20 mg instead of 40 mg please",
        "Give 20 mg instead.",
        "Change the dose to 20 mg",
    ],
)
def test_replies_that_correct_the_latest_write(message: str) -> None:
    assert corrects(message)


@pytest.mark.parametrize(
    "message",
    [
        "Should I make it 20 mg?",
        "Instead, check her interactions with warfarin.",
        "I meant to ask about her kidney function",
        "What is the usual dose of atorvastatin",
        "Prescribe amoxicillin 500 mg three times daily",
        "Make sure she has a lipid panel in 6 weeks",
    ],
)
def test_questions_and_new_requests_are_not_corrections(message: str) -> None:
    assert not corrects(message)


@pytest.mark.parametrize(
    ("message", "drugs", "changed"),
    [
        (
            "Correction: make that atorvastatin 20 mg nightly.",
            ["atorvastatin"],
            {"dosage": "20 mg", "frequency": "at bedtime"},
        ),
        ("Make it 20 mg, not 40 mg", [], {"dosage": "20 mg"}),
        ("Instead of 40 mg, give 20 mg", [], {"dosage": "20 mg"}),
        (
            "I meant rosuvastatin 10 mg",
            ["rosuvastatin"],
            {"medication_name": "rosuvastatin", "dosage": "10 mg"},
        ),
        (
            "Correction: rosuvastatin, not atorvastatin",
            ["rosuvastatin", "atorvastatin"],
            {"medication_name": "rosuvastatin"},
        ),
        ("I meant, check it against warfarin", ["warfarin"], {}),
        (
            "Change it to twice daily for 4 weeks",
            [],
            {"frequency": "twice daily", "duration": "for 4 weeks"},
        ),
    ],
)
def test_a_correction_changes_what_it_states_and_nothing_else(
    message: str, drugs: list[str], changed: dict[str, str]
) -> None:
    assert amended(RX, SAVED_RX, message, drugs) == {**SAVED_RX["args"], **changed}


def test_a_corrections_quoted_words_replace_the_note() -> None:
    message = "Correction: the note should read 'Started empagliflozin 10 mg daily; GFR 38.'"
    args = amended(NOTE, DECLINED_NOTE, message)
    assert args == {
        **DECLINED_NOTE["args"],
        "note_text": "Started empagliflozin 10 mg daily; GFR 38.",
    }


def test_doses_are_read_with_their_units_only() -> None:
    assert doses("0.5 mg then 1 mg; 10 units; 5 mg/kg; 2 tablets; 20mg") == [
        "0.5 mg",
        "1 mg",
        "10 units",
        "20mg",
    ]

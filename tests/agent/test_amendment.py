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
    reproposal,
    saved_write,
    still_meant,
)
from docgemma.agent.entities import drug_dictionary
from docgemma.tools.registry import build_registry

REGISTRY = build_registry()
DRUGS = drug_dictionary().find
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
    args = amended(
        NOTE, DECLINED_NOTE, "Save it again with 'Recheck U&E in one week.' added", DRUGS
    )
    assert args == {
        **DECLINED_NOTE["args"],
        "note_text": "Switched from metformin to empagliflozin 10 mg daily; GFR 38. "
        "Recheck U&E in one week.",
    }


def test_a_stated_closed_field_changes_and_nothing_else() -> None:
    args = amended(NOTE, DECLINED_NOTE, "Resubmit it as a consult note", DRUGS)
    assert args == {**DECLINED_NOTE["args"], "note_type": "consult"}


def test_an_addition_is_not_read_for_closed_fields() -> None:
    """ "procedure" inside the added words is what the note says, not its type."""
    args = amended(NOTE, DECLINED_NOTE, "Save it again with 'procedure explained' added", DRUGS)
    assert args["note_type"] == "progress"
    assert args["note_text"].endswith("GFR 38. procedure explained")


def test_a_prescription_takes_a_new_frequency_and_duration() -> None:
    args = amended(RX, DECLINED_RX, "Same order but twice daily for 5 days", DRUGS)
    assert args == {**DECLINED_RX["args"], "frequency": "twice daily", "duration": "for 5 days"}


def test_asking_again_without_a_change_gives_the_same_card() -> None:
    assert amended(NOTE, DECLINED_NOTE, "Save it again", DRUGS) == DECLINED_NOTE["args"]


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
        "duration": "for 3 months",
    },
    turn=3,
    reference="MedicationRequest/rx-1",
)


@pytest.mark.parametrize(
    "message",
    [
        "Correction, make it atorvastatin 10 mg at night please",
        "Sorry, change it to 20 mg",
        "make it twice daily",
        "I meant 20 mg",
        "It should have been 20 mg.",
        "Should have been 20 mg",
        "20 mg instead of 40 mg please",
        "Give 20 mg instead.",
        "Change the dose to 20 mg",
        "Could you make it 20 mg?",
    ],
)
def test_replies_that_correct_the_latest_write(message: str) -> None:
    assert corrects(message)


@pytest.mark.parametrize(
    "message",
    [
        "Should I make it 20 mg?",
        "What if I make it 20 mg",
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
    ("message", "changed"),
    [
        (
            "Correction, make it atorvastatin 10 mg at night please",
            {"dosage": "10 mg", "frequency": "at bedtime"},
        ),
        ("Correction: make that Lipitor 20 mg", {"dosage": "20 mg"}),
        ("Make it 20 mg, not 40 mg", {"dosage": "20 mg"}),
        ("Instead of 40 mg, give 20 mg", {"dosage": "20 mg"}),
        ("Correction: not 40 mg but 20 mg", {"dosage": "20 mg"}),
        ("Give 20 mg instead of 40 mg nightly", {"dosage": "20 mg", "frequency": "at bedtime"}),
        ("Make that 1,000 mg", {"dosage": "1,000 mg"}),
        ("Make that .5 mg", {}),  # a dose misread by a digit is worse than none
        (
            "Change it from 40 mg once daily to 20 mg twice daily",
            {"dosage": "20 mg", "frequency": "twice daily"},
        ),
        (
            "Change it to twice daily for 4 weeks",
            {"frequency": "twice daily", "duration": "for 4 weeks"},
        ),
    ],
)
def test_a_correction_changes_what_it_states_and_nothing_else(
    message: str, changed: dict[str, str]
) -> None:
    assert amended(RX, SAVED_RX, message, DRUGS) == {**SAVED_RX["args"], **changed}


def test_a_drug_put_in_place_of_the_write_keeps_only_what_is_said_of_it() -> None:
    """The earlier frequency, duration and route were the earlier drug's."""
    args = amended(RX, SAVED_RX, "Correction: Crestor 10 mg, not atorvastatin", DRUGS)
    assert args == {"patient_id": "abc-123", "medication_name": "rosuvastatin", "dosage": "10 mg"}


@pytest.mark.parametrize(
    "message",
    [
        "Change the dose of her lisinopril to 20 mg",
        "Change the dose of her Zestril to 20 mg",  # a brand is its generic
        "Make it 20 mg and check it against warfarin",
        "I meant rosuvastatin 10 mg",  # which write's drug it replaces is unsaid
        "Correction: rosuvastatn 10 mg once daily, not atorvastatin",  # its new drug unknown
    ],
)
def test_a_message_naming_another_drug_does_not_amend_this_write(message: str) -> None:
    assert amended(RX, SAVED_RX, message, DRUGS) is None


def test_a_write_saved_under_a_brand_is_corrected_by_its_generic() -> None:
    saved = saved_write(RX, {**SAVED_RX["args"], "medication_name": "Lipitor"}, 3, "M/1")
    args = amended(RX, saved, "Correction: make that atorvastatin 20 mg", DRUGS)
    assert args == {**saved["args"], "dosage": "20 mg"}


@pytest.mark.parametrize(
    "message",
    [
        "Correction: the note should read 'Started empagliflozin 10 mg daily; GFR 38.'",
        "Correction: it should say 'Started empagliflozin 10 mg daily; GFR 38.'",
    ],
)
def test_quoted_words_replace_the_note_only_when_it_should_read_them(message: str) -> None:
    assert amended(NOTE, DECLINED_NOTE, message, DRUGS) == {
        **DECLINED_NOTE["args"],
        "note_text": "Started empagliflozin 10 mg daily; GFR 38.",
    }
    added = amended(NOTE, DECLINED_NOTE, "Correction: add 'review in 2 weeks'", DRUGS)
    assert added is not None and added["note_text"].startswith("Switched from metformin")
    assert added["note_text"].endswith("GFR 38. review in 2 weeks")


def test_doses_are_read_with_their_units_only() -> None:
    assert doses("0.5 mg then 1 mg; 10 units; 5 mg/kg; 2 tablets; 20mg; .5 mg; 2,5 mg") == [
        "0.5 mg",
        "1 mg",
        "10 units",
        "20mg",
    ]


def _card(message: str, *earlier, active: str | None = "abc-123", ids=()):
    return reproposal(
        message,
        earlier,
        turn=4,
        registry=REGISTRY,
        active_patient=active,
        patient_ids=list(ids),
        drugs_named=DRUGS,
    )


def test_a_correction_of_a_saved_write_replaces_its_entry() -> None:
    card = _card("Correction: make that 20 mg", SAVED_RX, active="ABC-123")
    assert card is not None and card["args"] == {**SAVED_RX["args"], "dosage": "20 mg"}
    assert card["replacing"] == {
        "replaces": "MedicationRequest/rx-1",
        "replaced": "Prescription: atorvastatin, 40 mg, oral, once daily, for 3 months "
        "for patient abc-123",
    }
    assert "ask" not in card


@pytest.mark.parametrize(
    "message",
    [
        "Correction, start her on atorvastatin 20 mg instead",
        "Change the dose of her atorvastatin to 20 mg",  # the drug just saved
    ],
)
def test_a_correction_may_also_read_as_an_order(message: str) -> None:
    card = _card(message, SAVED_RX)
    assert card is not None and card["args"]["dosage"] == "20 mg" and "replacing" in card


def test_a_new_drug_without_its_regimen_is_asked_for_not_shown() -> None:
    card = _card("Correction: rosuvastatin 10 mg, not atorvastatin", SAVED_RX)
    assert card is not None and card["ask"] == (
        "To put rosuvastatin in place of atorvastatin, I need its frequency too. Please say "
        'the whole order, e.g. "Correction: rosuvastatin <dose> <how often>, not atorvastatin".'
    )
    whole = _card("Correction: rosuvastatin 10 mg once daily, not atorvastatin", SAVED_RX)
    assert whole is not None and "ask" not in whole and whole["replacing"]
    assert whole["args"] == {
        "patient_id": "abc-123",
        "medication_name": "rosuvastatin",
        "dosage": "10 mg",
        "frequency": "once daily",
    }


@pytest.mark.parametrize(
    ("message", "active", "ids"),
    [
        ("Prescribe amlodipine 5 mg daily instead of atorvastatin", "abc-123", ()),
        ("Save a progress note: switched to 20 mg instead of 40 mg", "abc-123", ()),
        ("Correction: make that 20 mg", "xyz-999", ()),  # another patient is selected
        ("Correction: make that 20 mg", None, ()),  # no patient is selected
        ("Make it 20 mg for xyz-999 instead", "abc-123", ("xyz-999",)),
        ("Correction: make that 40 mg once daily.", "abc-123", ()),  # nothing changes
        ("Should I make it 20 mg?", "abc-123", ()),
    ],
)
def test_no_correction_card_for_new_writes_other_patients_or_no_change(
    message: str, active: str | None, ids: tuple[str, ...]
) -> None:
    assert _card(message, SAVED_RX, active=active, ids=ids) is None


def test_the_write_a_correction_changes_is_meant_the_later_if_both() -> None:
    declined_later = declined_write(NOTE, DECLINED_NOTE["args"], turn=4)
    card = _card("Correction: make that 20 mg", SAVED_RX, declined_later)
    assert card is not None and card["tool"] == "prescribe_medication"  # a note has no dose
    card = _card("Correction: make it a consult note", SAVED_RX, declined_later)
    assert card is not None and card["tool"] == "save_clinical_note"
    assert card["args"]["note_type"] == "consult" and "replacing" not in card


def test_a_declined_correction_asked_for_again_still_replaces_the_entry() -> None:
    first = _card("Correction: make that 20 mg", SAVED_RX)
    assert first is not None
    declined = declined_write(RX, first["args"], turn=4, replacing=first["replacing"])
    again = reproposal(
        "Save it again but twice daily",
        (SAVED_RX, declined),
        turn=5,
        registry=REGISTRY,
        active_patient="abc-123",
        patient_ids=[],
        drugs_named=DRUGS,
    )
    assert again is not None and again["replacing"] == first["replacing"]
    assert again["args"] == {**first["args"], "frequency": "twice daily"}

"""What the clinician dictated for the record is read by code, in several phrasings."""

from __future__ import annotations

import pytest

from docgemma.agent.dictation import clinician_run, dictation, in_clinician_runs, restate
from docgemma.tools.registry import build_registry

REGISTRY = build_registry()
NOTE, RX, ALLERGY = (
    REGISTRY["save_clinical_note"],
    REGISTRY["prescribe_medication"],
    REGISTRY["add_allergy"],
)


@pytest.mark.parametrize(
    ("message", "dictated"),
    [
        (
            "Save a note: Switched from lisinopril 10mg daily to losartan 50mg daily because of "
            "a dry cough. BP 132/80.",
            "Switched from lisinopril 10mg daily to losartan 50mg daily because of a dry cough. "
            "BP 132/80.",
        ),
        (
            "Add a progress note for patient xyz-4410: wound clean, sutures out on day 10.",
            "wound clean, sutures out on day 10.",
        ),
        ("Note for pt 55123: seen at 09:15, afebrile", "seen at 09:15, afebrile"),
        ("Document that she declined the statin after discussion.", "she declined the statin "
         "after discussion."),
        (
            "Please write a consult note to his chart saying cardiology agrees with rate control",
            "cardiology agrees with rate control",
        ),
        ('Put "tolerating oral intake, plan discharge tomorrow" in her notes', "tolerating oral "
         "intake, plan discharge tomorrow"),
        ("Save a procedure note - lumbar puncture, clear CSF, no complications",
         "lumbar puncture, clear CSF, no complications"),
        ("Write a note saying knee swelling improved for patient xyz-4410.",
         "knee swelling improved"),
        ("Could you add a note on rkhan-220 pain controlled on oral analgesia",
         "pain controlled on oral analgesia"),
    ],
    ids=["colon", "type-and-id", "time-kept", "document-that", "saying", "quoted", "dash",
         "address-at-the-end", "no-separator"],
)  # fmt: skip
def test_the_dictation_is_the_clinicians_words_after_the_command(
    message: str, dictated: str
) -> None:
    assert dictation(message) == dictated


@pytest.mark.parametrize(
    "message",
    [
        "Prescribe ramipril 2.5 mg once daily for her",
        "What did the last note say?",
        "Save it again with the weight added.",
    ],
)
def test_a_message_that_dictates_nothing_has_no_dictation(message: str) -> None:
    assert dictation(message) is None


@pytest.mark.parametrize(
    ("value", "message", "run"),
    [
        ("Hives", "he gets hives from it", "hives"),
        ("wheezing", "she starts to wheeze after aspirin", "wheeze"),  # by the word's beginning
        ("swelling of the lips", "It caused Swelling of the Lips.", "Swelling of the Lips"),
        ("take with food", "tell him to take it with food", "take it with food"),
        ("skin rash", "gets a rash", None),  # a word the clinician never said
        ("nausea and vomiting", "causes vomiting", None),
    ],
)
def test_a_verbatim_value_is_a_run_of_the_clinicians_words(
    value: str, message: str, run: str | None
) -> None:
    assert clinician_run(value, [message]) == run


def test_a_note_put_together_from_two_messages_is_the_clinicians_words() -> None:
    said = ["Add that her weight is 64 kg.", "Save a note: sleeping badly, sertraline started."]
    assert in_clinician_runs("sleeping badly, sertraline started. Weight is 64 kg.", said)
    assert not in_clinician_runs("sleeping badly; mood low, weight 64 kg.", said)


def test_a_note_split_at_the_wrong_word_is_restated_whole() -> None:
    message = "Save a note: Started apixaban 5 mg twice daily for new AF. CHA2DS2-VASc 4."
    split = {"patient_id": "xyz-4410", "note_type": "started apixaban", "note_text": "for new AF."}
    restated = restate(NOTE, split, [message])
    assert restated.changed == {
        "note_type": "progress",  # no type stated: the default, not the model's words
        "note_text": "Started apixaban 5 mg twice daily for new AF. CHA2DS2-VASc 4.",
    }
    assert not restated.missing


def test_a_stated_note_type_is_read_from_the_command_not_the_text() -> None:
    message = "Write a discharge summary note for xyz-4410: consultation with renal booked."
    restated = restate(NOTE, {"note_type": "consult", "note_text": "x"}, [message])
    assert restated.changed["note_type"] == "discharge"


def test_a_note_nobody_dictated_is_asked_for() -> None:
    restated = restate(NOTE, {"note_text": "Patient reviewed."}, ["Save a note for her"])
    assert restated.missing == ["note_text"]


@pytest.mark.parametrize(
    ("message", "proposal", "changed", "missing"),
    [
        (
            "Start doxycycline 100 mg BID PO for 7 days for rkhan-220",
            {"frequency": "once daily"},
            {"frequency": "twice daily", "route": "oral", "duration": "for 7 days"},
            [],
        ),
        (
            "Give ceftriaxone 1 g IV q24h... no, once daily, for pt 55123",
            {"frequency": "once daily", "route": "intramuscular"},
            {"route": "intravenous"},
            [],
        ),
        ("Prescribe sertraline 50 mg for rkhan-220", {"frequency": "once daily"}, {},
         ["frequency"]),
        (
            "Prescribe apixaban 5 mg twice a day for rkhan-220, take it with food",
            {"frequency": "twice daily", "notes": "Take with food", "duration": "for 3 months"},
            {"notes": "take it with food", "duration": None},
            [],
        ),
        (
            "Prescribe metformin 500 mg twice daily for abc-123",
            {"frequency": "twice daily", "duration": "123"},
            {"duration": None},
            [],
        ),
        (
            "Start amoxicillin 500 mg three times a day for 5 days for abc-123",
            {"frequency": "three times daily", "duration": "5 days"},
            {},
            [],
        ),
        (
            "Please prescribe x 5 mg once daily for patient rkhan-220",
            {"frequency": "once daily",
             "notes": "Please prescribe x 5 mg once daily for patient rkhan-220"},
            {"notes": None},
            [],
        ),
        (
            "Prescribe x 5 mg once daily for rkhan-220, stop x if the rash spreads",
            {"frequency": "once daily", "notes": "stop x if the rash spreads"},
            {},
            [],
        ),
        (
            "ok prescribe x 400 mg tds po 7 days for rkhan-220 instead",
            {"frequency": "three times daily", "route": "oral", "duration": "7 days",
             "notes": "instead"},
            {"notes": None},
            [],
        ),
        (
            "started iv 3 days post op; prescribe x 400 mg tds for rkhan-220",
            {"frequency": "three times daily", "route": "intravenous", "duration": "3 days"},
            {"duration": None},
            [],
        ),
    ],
    ids=[
        "abbreviations",
        "route-stated",
        "no-frequency",
        "notes-and-invented-duration",
        "an-id-is-no-duration",
        "the-stated-duration",
        "the-order-is-no-note",
        "a-note-naming-the-drug",
        "a-bare-duration-and-no-remark",
        "a-history-is-no-course",
    ],
)  # fmt: skip
def test_a_prescriptions_fields_are_the_clinicians(
    message: str, proposal: dict, changed: dict, missing: list
) -> None:
    args = {"patient_id": "rkhan-220", "medication_name": "x", "dosage": "5 mg", **proposal}
    restated = restate(RX, args, [message])
    assert restated.changed == changed and restated.missing == missing


def test_a_prescription_answered_across_two_messages_reads_the_first() -> None:
    """Asked which patient, the clinician replies with an id: the frequency is in the request."""
    said = ["rkhan-220", "Prescribe naproxen 500 mg twice daily for her"]
    args = {"patient_id": "rkhan-220", "medication_name": "naproxen", "frequency": "once daily"}
    assert restate(RX, args, said).changed == {"frequency": "twice daily"}


@pytest.mark.parametrize(
    ("message", "proposal", "changed", "missing"),
    [
        ("Sulfa allergy for pt 55123: she gets a widespread rash, severe", {"reaction": "rash"},
         {"severity": "severe"}, []),
        ("Record that he is allergic to enalapril; it makes him cough", {"reaction": "coughing"},
         {"reaction": "cough"}, []),
        ("Add a peanut allergy for rkhan-220", {"reaction": "anaphylaxis", "severity": "severe"},
         {"severity": None}, ["reaction"]),
    ],
    ids=["stated-severity", "reaction-in-their-word", "reaction-nobody-gave"],
)  # fmt: skip
def test_an_allergys_reaction_and_severity_are_the_clinicians(
    message: str, proposal: dict, changed: dict, missing: list
) -> None:
    args = {"patient_id": "rkhan-220", "substance": "x", **proposal}
    restated = restate(ALLERGY, args, [message])
    assert restated.changed == changed and restated.missing == missing

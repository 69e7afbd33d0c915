"""Messages that order a record write are recognised by code."""

from __future__ import annotations

import pytest

from docgemma.agent.orders import order_position, ordered_write, write_to_propose
from docgemma.tools.registry import build_registry

REGISTRY = build_registry()
RX = "prescribe_medication"


@pytest.mark.parametrize(
    "message",
    [
        "Prescribe doxycycline 100 mg twice daily for abc-123",
        "Start her on lisinopril 10 mg once daily",
        "please order ceftriaxone 1 g IV daily",
        "OK, then prescribe it again: nitrofurantoin 100 mg twice a day",
        "Could you please start metformin 500 mg with meals for him?",
        "Yes, prescribe amlodipine 5 mg daily",
        "Find patient Maria Garcia and prescribe metformin 500 mg",  # once she is found
        "Her eGFR is 28. Stop metformin, start linagliptin 5 mg daily",
        "Let's start apixaban 5 mg twice daily",
        "she has a UTI, pls prescribe co-trimoxazole 960 mg bd for 3 days",
        "can u start her on nitrofurantoin 100 mg bd",
        "Change the dose of her metoprolol to 25 mg twice daily",
        "OK, increase the dose of ramipril to 10 mg once daily",
    ],
)
def test_an_order_to_prescribe_is_recognised(message: str) -> None:
    assert ordered_write(message, REGISTRY, drug_named=True) == RX


@pytest.mark.parametrize(
    "message",
    [
        "What dose should I start metformin at?",  # a question, not an order
        "Is it safe to prescribe ibuprofen with warfarin?",
        "Should we order a CT?",
        "Check the interactions before I prescribe clarithromycin",
        "What would you prescribe for community-acquired pneumonia?",
        "When should we start a statin after an MI?",
        "Which drug do I start first, and at what dose?",
        "Lower the dose in order to avoid hypoglycaemia",
        "No, don't prescribe it",
        "Should I increase the dose of ramipril?",
        "When do you reduce the dose of metformin in CKD?",
    ],
)
def test_a_question_or_another_request_is_not_an_order(message: str) -> None:
    assert ordered_write(message, REGISTRY, drug_named=True) is None


def test_an_order_without_a_drug_is_not_taken_as_a_prescription() -> None:
    assert ordered_write("Order a chest X-ray for her", REGISTRY, drug_named=False) is None


def test_the_order_found_is_the_clause_that_gives_it() -> None:
    query = "Find patient Maria Garcia, then start metformin 500 mg"
    pattern = REGISTRY[RX].requested_by[0]
    assert query[order_position(query, pattern) :].startswith("start metformin")
    assert order_position("Should I start metformin?", pattern) is None


def test_code_proposes_the_write_once_and_only_for_a_known_patient() -> None:
    query = "Prescribe doxycycline 100 mg twice daily for her"

    def propose(**kw) -> str | None:
        base = {"drug_named": True, "patient_known": True, "tried": ()}
        return write_to_propose(query, REGISTRY, **(base | kw))

    assert propose() == RX
    assert propose(patient_known=False) is None  # the patient is searched for first
    assert propose(tried={RX}) is None  # proposed (and declined or written) this turn


@pytest.mark.parametrize(
    "message",
    [
        "Save a note for abc-123: tired for two weeks, TSH requested.",
        "Save a note: reports fatigue, TSH ordered.",
        "Write a note for patient mgarcia-001: INR 2.6, no bleeding, continue warfarin 5 mg.",
        "Add a clinical note to the record of patient abc-123: potassium 5.9, repeat today.",
        "Could you please add a brief progress note: seen in clinic, well.",
        "Ok, save a note: seen, well.",
        "Add an op note for abc-123 - uneventful laparoscopic cholecystectomy.",
        "Document a progress note saying wound healing well",
        # what the note says is its plan, not a prescription
        "Save a note: INR 2.6, continue warfarin; start bisoprolol 2.5 mg daily",
    ],
)
def test_a_dictated_note_is_an_order_whatever_it_names(message: str) -> None:
    assert ordered_write(message, REGISTRY, drug_named=True) == "save_clinical_note"


@pytest.mark.parametrize(
    "message",
    [
        "Should I write a note about her TSH?",
        "What did the last note say about her potassium?",
        "Save a note",  # nothing dictated: asked for, not ordered
        "Note: TSH 2.1 today",
        "Summarise his notes on the INR",
        "Make a note of her TSH: what was it last month?",  # a question after the colon
        "Write a note to the GP: please review her blood pressure",  # a letter, not the record
        "Write a sick note: off work for two weeks",
        "Write a SOAP note template for chest pain",
        "Add an entry to the allergy list: penicillin - rash",
    ],
)
def test_a_question_about_notes_is_not_an_order_for_one(message: str) -> None:
    assert ordered_write(message, REGISTRY, drug_named=False) is None

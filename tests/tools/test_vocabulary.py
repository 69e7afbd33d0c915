"""The closed vocabularies of the record writes: their values, how clinicians say them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from docgemma.ehr import codes
from docgemma.tools.args import ClinicalNoteArgs, PrescribeMedicationArgs
from docgemma.tools.vocabulary import FREQUENCY, NOTE_TYPE, ROUTE, SEVERITY


@pytest.mark.parametrize(
    ("text", "frequency"),
    [
        ("ramipril 5 mg od", "once daily"),
        ("500 mg b.i.d.", "twice daily"),
        ("1 g TDS", "three times daily"),
        ("2 puffs four times a day", "four times daily"),
        ("morphine 5 mg q4h PRN", "every 4 hours as needed"),
        ("paracetamol 1 g every 6 hours as required", "every 6 hours as needed"),
        ("zopiclone 3.75 mg at night", "at bedtime"),
        ("methotrexate 10 mg once a week", "once weekly"),
        ("adrenaline 0.5 mg IM stat", "once"),
    ],
)
def test_frequencies_are_read_however_they_are_written(text: str, frequency: str) -> None:
    assert FREQUENCY.stated(text) == [frequency]


def test_routes_and_note_types_are_read_from_their_words() -> None:
    assert ROUTE.stated("enoxaparin 40 mg subcut daily") == ["subcutaneous"]
    assert ROUTE.stated("500 mg by mouth") == ["oral"]
    assert ROUTE.stated("500 mg twice daily") == []
    assert NOTE_TYPE.stated("write an H&P for him") == ["history and physical"]
    assert SEVERITY.stated("a life-threatening reaction") == ["severe"]


def test_every_value_is_coded_in_the_record() -> None:
    assert set(NOTE_TYPE.values) <= set(codes.NOTE_TYPES)
    assert set(ROUTE.values) <= set(codes.ROUTES)


def test_the_schema_takes_only_vocabulary_values_and_reads_abbreviations() -> None:
    rx = PrescribeMedicationArgs(
        patient_id="p-1", medication_name="x", dosage="5 mg", frequency="BID", route="PO"
    )
    assert (rx.frequency, rx.route) == ("twice daily", "oral")
    with pytest.raises(ValidationError):
        PrescribeMedicationArgs(patient_id="p-1", medication_name="x", dosage="5", frequency="2")
    with pytest.raises(ValidationError):
        ClinicalNoteArgs(patient_id="p-1", note_type="gliclazide stopped", note_text="x")
    assert ClinicalNoteArgs(patient_id="p-1", note_text="x").note_type == NOTE_TYPE.default


def test_the_model_sees_the_vocabulary_as_an_enum() -> None:
    schema = PrescribeMedicationArgs.model_json_schema()["properties"]
    assert schema["frequency"]["enum"] == list(FREQUENCY.values)
    assert schema["route"]["anyOf"][0]["enum"] == list(ROUTE.values)


@pytest.mark.parametrize(
    ("dosage", "frequency", "kept"),
    [
        ("500 mg twice daily", "twice daily", "500 mg"),
        ("500 mg BID", "twice daily", "500 mg"),
        ("20 mg once nightly", "at bedtime", "20 mg"),
        ("20 mg twice daily", "once daily", "20 mg twice daily"),  # a conflict, shown whole
        ("1 g", "three times daily", "1 g"),
    ],
)
def test_a_dose_drops_only_a_whole_frequency_that_repeats_the_field(
    dosage: str, frequency: str, kept: str
) -> None:
    rx = PrescribeMedicationArgs(
        patient_id="p-1", medication_name="x", dosage=dosage, frequency=frequency
    )
    assert rx.dosage == kept


@pytest.mark.parametrize(
    ("dosage", "frequency", "dose", "route", "duration"),
    [
        ("400mg tds po", "three times daily", "400mg", "oral", None),
        ("500mg bd x3 days", "twice daily", "500mg", None, "x3 days"),
        ("1 g IV", "once daily", "1 g", "intravenous", None),
        ("20 mg twice daily", "once daily", "20 mg twice daily", None, None),  # a conflict
        ("500 mg/5 ml", "once daily", "500 mg/5 ml", None, None),
        ("10 mg a week", "once daily", "10 mg a week", None, None),  # a frequency, not a course
        ("1,000 mg po", "twice daily", "1,000 mg", "oral", None),
    ],
)
def test_a_dose_gives_its_frequency_route_and_duration_to_their_fields(
    dosage: str, frequency: str, dose: str, route: str | None, duration: str | None
) -> None:
    args = PrescribeMedicationArgs(
        patient_id="abc-123", medication_name="x", dosage=dosage, frequency=frequency
    )
    assert (args.dosage, args.route, args.duration) == (dose, route, duration)

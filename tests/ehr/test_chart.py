"""Chart summary logic: what a clinician sees from raw FHIR resources."""

from __future__ import annotations

import base64
from datetime import date

from docgemma.ehr.chart import NOTE_EXCERPT_CHARS, age_on, build_summary

PATIENT = {
    "resourceType": "Patient",
    "id": "p1",
    "name": [{"given": ["Ada"], "family": "Byron"}],
    "gender": "female",
    "birthDate": "1970-06-15",
    "identifier": [{"value": "MRN-9"}],
}


def _obs(code: str, text: str, value: float, when: str, category: str = "laboratory") -> dict:
    return {
        "resourceType": "Observation",
        "status": "final",
        "category": [{"coding": [{"code": category}]}],
        "code": {"coding": [{"system": "http://loinc.org", "code": code}], "text": text},
        "effectiveDateTime": when,
        "valueQuantity": {"value": value, "unit": "mmol/L"},
    }


def _summary(**overrides):
    kwargs = dict(
        conditions=[], medications=[], allergies=[], observations=[], notes=[], reports=[]
    )
    kwargs.update(overrides)
    return build_summary(PATIENT, today=date(2025, 6, 14), **kwargs)


def test_latest_value_per_code_wins() -> None:
    summary = _summary(
        observations=[
            _obs("2823-3", "Potassium", 4.0, "2025-01-01"),
            _obs("2823-3", "Potassium", 5.4, "2025-05-01"),
            _obs("2823-3", "Potassium", 4.6, "2025-03-01"),
            _obs("8867-4", "Heart rate", 72, "2025-05-01", "vital-signs"),
        ]
    )
    assert [(m.name, m.value) for m in summary.labs] == [("Potassium", "5.4 mmol/L")]
    assert [m.name for m in summary.vitals] == ["Heart rate"]
    assert "Potassium 5.4 mmol/L (2025-05-01)" in summary.text()


def _ucum(value: float, code: str, *, in_unit: bool = True) -> dict:
    """A Quantity as many servers send it: the UCUM code copied into ``unit``, or no unit."""
    quantity = {"value": value, "system": "http://unitsofmeasure.org", "code": code}
    return {**quantity, "unit": code} if in_unit else quantity


def _sent(text: str, **value: object) -> dict:
    """A lab observation whose value (``valueQuantity`` or ``component``) is given as sent."""
    obs = _obs(text, text, 0, "2025-05-01")
    del obs["valueQuantity"]
    return {**obs, **value}


def test_ucum_codes_sent_as_units_are_shown_readably() -> None:
    observations = [
        _sent(
            "Blood pressure", component=[{"valueQuantity": _ucum(v, "mm[Hg]")} for v in (150, 92)]
        ),
        _sent("Temperature", valueQuantity=_ucum(37.0, "Cel")),
        _sent("Heart rate", valueQuantity=_ucum(88, "/min")),
        _sent("eGFR", valueQuantity=_ucum(48, "mL/min/{1.73_m2}")),
        _sent("INR", valueQuantity=_ucum(2.6, "{INR}", in_unit=False)),
        _sent("Score", valueQuantity=_ucum(4, "{score}")),
        _sent("HbA1c", valueQuantity=_ucum(7.8, "%")),
    ]
    assert {m.name: m.value for m in _summary(observations=observations).labs} == {
        "Blood pressure": "150/92 mmHg",
        "Temperature": "37.0 °C",
        "Heart rate": "88 /min",
        "eGFR": "48 mL/min/1.73 m²",
        "INR": "2.6",
        "Score": "4 score",
        "HbA1c": "7.8%",
    }


def test_a_rate_sent_as_bare_per_minute_reads_as_what_it_counts() -> None:
    """Synthea sends heart and breathing rates as "/min"; the synthetic charts say
    "beats/min", and every chart now reads alike."""
    rates = [
        {**_sent("Heart rate", valueQuantity=_ucum(88, "/min")), **_loinc("8867-4")},
        {**_sent("Respiratory rate", valueQuantity=_ucum(16, "/min")), **_loinc("9279-1")},
        _sent("Drip rate", valueQuantity=_ucum(20, "/min")),
    ]
    assert [m.value for m in _summary(observations=rates).labs] == [
        "88 beats/min",
        "16 breaths/min",
        "20 /min",
    ]


def _loinc(code: str) -> dict:
    return {"code": {"coding": [{"system": "http://loinc.org", "code": code}]}}


def test_inactive_problems_and_stopped_drugs_are_left_out() -> None:
    summary = _summary(
        conditions=[
            {"code": {"text": "Asthma"}, "clinicalStatus": {"coding": [{"code": "active"}]}},
            {"code": {"text": "Pneumonia"}, "clinicalStatus": {"coding": [{"code": "resolved"}]}},
        ],
        medications=[
            {
                "status": "active",
                "medicationCodeableConcept": {"text": "warfarin"},
                "dosageInstruction": [{"text": "5 mg daily"}],
            },
            {"status": "stopped", "medicationCodeableConcept": {"text": "aspirin"}},
        ],
        allergies=[
            {
                "code": {"text": "penicillin"},
                "reaction": [{"manifestation": [{"text": "hives"}], "severity": "moderate"}],
            }
        ],
    )
    assert summary.conditions == ["Asthma"]
    assert summary.medications == ["warfarin 5 mg daily"]
    assert summary.allergies == ["penicillin (hives, moderate)"]


def test_demographics_and_empty_sections() -> None:
    summary = _summary()
    text = summary.text()
    assert summary.age == 54 and summary.mrn == "MRN-9"
    assert text.startswith("Patient: Ada Byron (ID p1) — 54 y, female")
    assert "Active medications: none recorded" in text


def test_notes_are_decoded_and_shortened() -> None:
    long_text = "word " * 200
    note = {
        "date": "2025-05-01T10:00:00Z",
        "description": "Progress note",
        "content": [{"attachment": {"data": base64.b64encode(long_text.encode()).decode()}}],
    }
    excerpt = _summary(notes=[note]).notes[0]
    assert excerpt.date == "2025-05-01" and excerpt.excerpt.endswith("…")
    assert len(excerpt.excerpt) <= NOTE_EXCERPT_CHARS + 2


def test_age_handles_birthdays_and_partial_dates() -> None:
    assert age_on("1940-02-29", date(2025, 2, 28)) == 84
    assert age_on("1940-02-29", date(2025, 3, 1)) == 85
    assert age_on("1970", date(2025, 1, 1)) is None

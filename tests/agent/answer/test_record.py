"""A question about what the record holds is answered with the record's own lines
(``answer.record``)."""

from __future__ import annotations

import pytest

from docgemma.agent.answer.record import only_names_record_items, record_answer, record_lines
from docgemma.ehr.chart import ChartSummary, Measurement

SUMMARY = ChartSummary(
    patient_id="gk-8",
    name="Grace Kim",
    conditions=["Hypertension", "Chronic kidney disease stage 3"],
    medications=["lisinopril 5 mg once daily", "amlodipine 5 mg once daily"],
    allergies=["sulfamethoxazole (Stevens-Johnson syndrome, severe)"],
    labs=[
        Measurement(name="Creatinine", value="1.4 mg/dL", date="2025-05-29"),
        Measurement(name="eGFR", value="38 mL/min/1.73 m²", date="2025-05-29"),
        Measurement(name="Potassium", value="4.9 mmol/L", date="2025-05-29"),
    ],
    vitals=[Measurement(name="Blood pressure", value="135/75 mmHg", date="2025-05-29")],
).text()


@pytest.mark.parametrize(
    ("question", "lines"),
    [
        ("What's her latest GFR?", ["Latest labs: eGFR 38 mL/min/1.73 m² (2025-05-29)"]),
        ("k+?", ["Latest labs: Potassium 4.9 mmol/L (2025-05-29)"]),
        (
            "Her kidney function?",
            ["Latest labs: Creatinine 1.4 mg/dL (2025-05-29); eGFR 38 mL/min/1.73 m² (2025-05-29)"],
        ),
        (
            "What is she allergic to?",
            ["Allergies: sulfamethoxazole (Stevens-Johnson syndrome, severe)"],
        ),
        ("What is her BP?", ["Latest vitals: Blood pressure 135/75 mmHg (2025-05-29)"]),
        (
            "What meds is she on?",
            ["Active medications: lisinopril 5 mg once daily; amlodipine 5 mg once daily"],
        ),
        ("How old is she?", []),
        ("What is her sodium?", []),  # not in the record: nothing, and the model is asked
    ],
)
def test_the_lines_the_question_names(question: str, lines: list[str]) -> None:
    assert record_lines(question, SUMMARY) == lines


def test_the_answer_cites_the_record_on_every_line() -> None:
    assert record_answer("Her potassium and her allergies?", SUMMARY, source=2) == (
        "- Allergies: sulfamethoxazole (Stevens-Johnson syndrome, severe) [2]\n"
        "- Latest labs: Potassium 4.9 mmol/L (2025-05-29) [2]"
    )
    assert record_answer("How old is she?", SUMMARY) == ""


@pytest.mark.parametrize(
    ("question", "terse"),
    [
        ("k+?", True),
        ("Latest creatinine?", True),
        ("allergys", True),
        ("BP and potassium pls", True),
        ("Her creatinine trend?", True),
        ("What is a normal potassium?", False),  # a general question, not about her record
        ("k+ in DKA?", False),
        ("Is that potassium a problem?", False),
        ("INR?", False),  # not in this record: nothing of the record to show
    ],
)
def test_a_terse_question_naming_only_record_items_is_told_apart(
    question: str, terse: bool
) -> None:
    assert only_names_record_items(question, SUMMARY) is terse

"""Condition names from ICD-10-CM: found in questions, and not mistaken in drugs or words."""

from __future__ import annotations

import pytest

from docgemma.agent.conditions import condition_names


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("and trials in atrial fibrillation.", ["atrial fibrillation"]),
        ("recruiting trials for type 2 diabetes in older adults", ["type 2 diabetes"]),
        (
            "SGLT2 inhibitors in heart failure with preserved ejection fraction",
            ["heart failure with preserved ejection fraction"],
        ),
        ("Are there trials for Parkinson's disease?", ["parkinson s disease"]),
        ("semaglutide for obesity", ["obesity"]),
        ("first-line treatment for hypertension", ["hypertension"]),
        ("COPD", ["copd"]),
        ("covid-19 pneumonia", ["covid 19", "pneumonia"]),
        ("migraine with aura", ["migraine with aura"]),
    ],
)
def test_conditions_are_found_by_their_names(text: str, named: list[str]) -> None:
    assert condition_names().find(text) == named


@pytest.mark.parametrize(
    "text",
    [
        "dofetilide",
        "azithromycin",
        "warfarin",  # ICD names it in "dysmorphism due to warfarin", not as a condition
        "grapefruit juice",
        "Prescribe metformin 500 mg twice daily for abc-123",
        "John Smith",
        "chronic",  # a qualifier of a thousand conditions names none
        "Check interactions between lisinopril and spironolactone",
    ],
)
def test_drugs_people_and_common_words_are_not_conditions(text: str) -> None:
    assert condition_names().find(text) == []

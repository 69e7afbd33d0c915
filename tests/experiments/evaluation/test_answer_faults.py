"""The scorer's own answer check, and proof that it is not the agent's guard."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from docgemma.tools.registry import build_registry
from experiments.evaluation import answer_faults as module
from experiments.evaluation.answer_faults import answer_faults

TOOLS = build_registry().names
GOOD = (
    "Dofetilide carries a boxed warning: start it in hospital with 3 days of ECG monitoring, "
    "because it can cause torsade de pointes.\n\n- Keep potassium and magnesium normal.\n"
    "- Adjust the dose to creatinine clearance."
)


@pytest.mark.parametrize(
    ("answer", "fault"),
    [
        ("", "empty"),
        ("...", "empty"),
        ("<|im_start|>system\nYou are DocGemma, a clinical assistant.", "prompt_echo"),
        ("What is the antidote for paracetamol poisoning?", "prompt_echo"),
        ("Take with food.\nTake with food.\nTake with food.", "repeated_lines"),
        ("the dose is low " * 12, "repeated_trigrams"),
        ("Metformin lowers glucose. Это лекарство безопасно.", "unexpected_script"),
        ("Metformin is contraindicated when the eGFR falls below", "cut_off"),
        ("Warfarin raises bleeding risk with ibuprofen and", "cut_off"),
        ("I called check_drug_safety for you.", "tool_name"),
        ("Traceback (most recent call last): KeyError: 'results'", "raw_error"),
        ('{"drug_name": "warfarin", "boxed_warning": "bleeding"}', "raw_json"),
        ("See Observation/abc-123-k for resourceType Observation.", "raw_fhir"),
    ],
)
def test_each_fault_is_found(answer, fault):
    assert fault in answer_faults(
        answer, question="What is the antidote for paracetamol poisoning?", tool_names=TOOLS
    )


def test_a_clean_answer_has_no_fault():
    assert (
        answer_faults(GOOD, question="Does dofetilide carry a boxed warning?", tool_names=TOOLS)
        == []
    )
    assert answer_faults("Hello! How can I help?", question="hi") == []
    assert answer_faults("- Potassium 5.1 mmol/L\n- eGFR 44", question="labs?") == []


def test_a_script_the_question_uses_is_not_unexpected():
    assert "unexpected_script" not in answer_faults("Да, метформин.", question="Метформин?")


def test_the_scorer_shares_no_code_with_the_agents_answer_modules():
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = {
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    } | {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert not [name for name in imported if name.startswith("docgemma")]

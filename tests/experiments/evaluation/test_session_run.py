"""Sessions through the served API on the scripted model: approvals, scoring, the table."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest

from docgemma.config import Settings
from docgemma.llm.scripted import ScriptedBackend
from docgemma.llm.types import Message
from experiments.evaluation.session_run import (
    evaluate_sessions,
    other_patients_named,
    session_table,
    turn_passed,
)
from experiments.evaluation.sessions import Session

ORDER = {
    "patient_id": "ajohnson-009",
    "medication_name": "metformin",
    "dosage": "500 mg",
    "frequency": "once daily",
}


def respond(messages: Sequence[Message], schema: type | None) -> Any:
    """Every turn orders metformin for one patient; free text restates the order."""
    if schema is None:
        return "Metformin 500 mg once daily has been proposed for Aisha Johnson."
    fields = set(schema.model_fields)
    if "intent" in fields:
        return {"intent": "TOOL_NEEDED", "task_summary": "order", "suggested_tool": None}
    if "tool_name" in fields:
        return {"tool_name": "prescribe_medication"}
    if "quality" in fields:
        return {"quality": "success_rich", "brief_summary": "done"}
    if fields & set(ORDER):
        return ORDER
    raise AssertionError(f"unexpected structured call {schema.__name__}")


SESSION = Session.model_validate(
    {
        "id": "scripted-write",
        "theme": "write_flow",
        "split": "dev",
        "turns": [
            {
                "message": "Order metformin 500 mg twice daily for patient ajohnson-009.",
                "expected_tools": ["prescribe_medication"],
                "expected_args": {"prescribe_medication": {"patient_id": "ajohnson-009"}},
                "patient": "ajohnson-009",
                "approval": "reject",
                "approval_reason": "wrong frequency",
            },
            {
                "message": "Order metformin 500 mg once daily for ajohnson-009 instead.",
                "expected_tools": ["prescribe_medication"],
                "expected_args": {"prescribe_medication": {"medication_name": "metformin"}},
                "patient": "ajohnson-009",
                "continues": True,
                "approval": "approve",
                "key_facts": [["metformin"]],
            },
        ],
    }
)


@pytest.fixture
def eval_settings(indexed_settings: Settings) -> Settings:
    return indexed_settings.model_copy(update={"backend": "scripted"})


async def test_a_rejected_then_approved_write_through_the_api_scores_every_turn(eval_settings):
    llm = ScriptedBackend(responder=respond)
    seen: list[int] = []  # the rows handed on after each session: what a stopped run keeps
    again = SESSION.model_copy(update={"id": "scripted-write-again"})
    turns = await evaluate_sessions(
        [SESSION, again],
        eval_settings,
        llm,
        classifiers={},
        on_session=lambda t: seen.append(len(t)),
    )
    assert seen == [2, 4]
    turns = turns[turns["session_id"] == SESSION.id]
    first, second = turns.to_dict("records")
    for row in (first, second):
        assert row["tools_called"] == "prescribe_medication" and row["tool_exact"]
        assert row["approval_shown"] is True and row["arg_accuracy"] == 1.0
        assert row["correct_patient"] is True and not row["error"]
        assert row["latency_s"] > 0
    assert first["approval"] == "reject" and second["approval"] == "approve"
    assert second["continuity"] is True and second["key_fact_recall"] == 1.0
    assert second["decision_answer"]
    table = session_table(turns)
    assert table.loc[0, "turns"] == 2 and table.loc[0, "tool_exact"] == 1.0


def test_a_namesake_is_not_another_patient_but_a_different_patient_is():
    assert other_patients_named("James Wilson's INR is 3.1", "jwilson-1945") == []
    assert other_patients_named("Linda Chen (lchen-002) has K 5.6", "abc-123") == ["lchen-002"]


def test_a_turn_passes_only_when_every_applicable_check_holds():
    row = {
        "tool_exact": True,
        "arg_accuracy": math.nan,
        "key_fact_recall": 1.0,
        "correct_patient": math.nan,
        "continuity": True,
        "asked_when_needed": math.nan,
        "refused_when_needed": math.nan,
        "approval_shown": math.nan,
        "leaked": False,
        "degenerate": False,
        "forbidden": False,
        "error": None,
    }
    assert turn_passed(row)
    assert not turn_passed(row | {"key_fact_recall": 0.5})
    assert not turn_passed(row | {"refused_when_needed": False})
    assert not turn_passed(row | {"degenerate": True})

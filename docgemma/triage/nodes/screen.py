"""Node ① SCREEN: the red-flag rules on the patient's words, before any model call.

A fired rule is written to the reasoning and its advice streamed to the patient at
once — before any slow model call — and the turn goes straight to retrieval: code, not
the model, decides that an emergency needs no small talk.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from docgemma.triage import red_flags, stream
from docgemma.triage.demographics import Demographics
from docgemma.triage.deps import TriageDeps
from docgemma.triage.patient_text import urgent_advice
from docgemma.triage.state import TriageState, rule_record


async def screen(state: TriageState, runtime: Runtime[TriageDeps]) -> dict[str, Any]:
    stream.step("screen", "Checking for emergency warning signs")
    demographics = Demographics.model_validate(state.get("demographics") or {})
    fired = red_flags.check(state["message"], demographics)
    reasoning = stream.reason("screen", demographics.describe())
    for rule in fired:
        reasoning += stream.reason("screen", rule.reasoning_line())
    for advice in urgent_advice(fired):
        stream.answer("screen", advice + " ")
    return {
        "red_flags": [rule_record(f) for f in fired],
        "reasoning": reasoning,
        "route": "",
        "search_query": "",
        "direct_reply": "",
        "sources": [],
        "retrieval_attempts": 0,
        "used_literature": False,
        "condition": None,
        "predicted_severity": None,
        "severity": red_flags.floor(fired).value if fired else None,
        "answer": "",
        "follow_ups": [],
        "fallback": False,
        "llm_calls": [],
    }

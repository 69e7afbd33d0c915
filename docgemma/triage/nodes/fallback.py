"""Node ⑦ FALLBACK: the model is unavailable; code answers with a pre-written message.

No model call: the red-flag advice (the rules need no model), the severity's action
when one was already decided, and the pre-written fallback message.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from docgemma.severity import Severity
from docgemma.triage import stream
from docgemma.triage.deps import TriageDeps
from docgemma.triage.follow_ups import follow_up_questions
from docgemma.triage.patient_text import fallback_text
from docgemma.triage.state import TriageState, fired_rules, with_turn


async def fallback(state: TriageState, runtime: Runtime[TriageDeps]) -> dict[str, Any]:
    stream.step("fallback", "The assistant is unavailable")
    severity = Severity(state["severity"]) if state.get("severity") else None
    answer = fallback_text(severity, fired_rules(state))
    stream.answer("fallback", answer)
    return {
        "answer": answer,
        "fallback": True,
        "follow_ups": follow_up_questions(severity, None),
        "messages": with_turn(state, answer),
        "reasoning": state.get("reasoning", "")
        + stream.reason(
            "fallback", "The model is unavailable: answered with the fallback message."
        ),
    }

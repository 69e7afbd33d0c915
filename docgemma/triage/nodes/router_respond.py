"""Node ⑥ ROUTER_RESPOND: the analysis rewritten for the patient, streamed sentence by sentence.

The model writes an empathetic, plain-English reply from the condition, the severity's
action and a few facts of the page; with the full context (``TriageDeps.context``) it
writes from the turn's clinical analysis instead, which the reasoning step wrote for
this conversation, so the reply can say why. Code then puts
any red-flag advice first (``screen`` has already streamed it), removes sentences that
mention internals, adds the action if the model left it out and makes sure the reply
ends with a question. Only this reply (and the patient's message) enters the history.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from docgemma.llm.repair import ModelFailure
from docgemma.severity import Severity
from docgemma.triage import llm_calls, stream
from docgemma.triage.demographics import Demographics
from docgemma.triage.deps import TriageDeps
from docgemma.triage.follow_ups import follow_up_questions
from docgemma.triage.patient_text import clean_reply, compose
from docgemma.triage.prompts import RESPOND_SYSTEM, RESPOND_USER, RESPOND_USER_FULL
from docgemma.triage.schemas import INCONCLUSIVE
from docgemma.triage.state import TriageState, condition_source, fired_rules, with_turn

RESPOND_TEMPERATURE = 0.5
"""Prose for a person: a little warmth, as the agent's synthesis."""
RESPOND_MAX_TOKENS = 200
FACT_CHARS = 400
ANALYSIS_CHARS = 1500
"""The end of a long analysis is kept: it holds the conclusion."""
_SENTENCE_END = re.compile(r"[.!?]\s")


def _facts(state: TriageState) -> str:
    page = condition_source(state)
    if page is None:
        return "No single condition matched; give general advice."
    return page["content"][:FACT_CHARS]


async def router_respond(state: TriageState, runtime: Runtime[TriageDeps]) -> dict[str, Any]:
    deps = runtime.context
    stream.step("router_respond", "Writing the answer")
    severity = Severity(state["severity"]) if state.get("severity") else None
    fired = fired_rules(state)
    page = condition_source(state)
    title = page["title"] if page else None
    follow_ups = follow_up_questions(severity, title)
    action = severity.action if severity else "see a GP if you are worried."
    condition = title or (
        "no single condition" if state.get("condition") == INCONCLUSIVE else "unclear"
    )
    history = llm_calls.history_text(state.get("messages") or [])
    demographics = Demographics.model_validate(state.get("demographics") or {}).describe()
    analysis = (state.get("analysis") or "").strip()
    if deps.context == "full" and analysis:
        user = RESPOND_USER_FULL.format(
            history=history,
            demographics=demographics,
            symptoms=state["message"],
            analysis=analysis[-ANALYSIS_CHARS:],
            condition=condition,
            severity=severity.value if severity else "unclear",
        )
    else:
        user = RESPOND_USER.format(
            history=history,
            demographics=demographics,
            symptoms=state["message"],
            condition=condition,
            severity=severity.value if severity else "unclear",
            facts=_facts(state),
        )
    calls = [*state.get("llm_calls", []), "respond"]
    raw, pending = "", ""
    try:
        async for piece in llm_calls.text_stream(
            deps.llm,
            llm_calls.as_messages(RESPOND_SYSTEM.format(action=action), user),
            temperature=RESPOND_TEMPERATURE,
            max_tokens=RESPOND_MAX_TOKENS,
        ):
            raw += piece
            pending += piece
            while (match := _SENTENCE_END.search(pending)) is not None:
                sentence, pending = pending[: match.end()], pending[match.end() :]
                if shown := clean_reply(sentence):
                    stream.answer("router_respond", shown + " ")
    except ModelFailure:
        return {"route": "fallback", "fallback": True, "llm_calls": calls}
    answer = compose(raw, severity, fired)
    return {
        "answer": answer,
        "follow_ups": follow_ups,
        "messages": with_turn(state, answer),
        "llm_calls": calls,
    }

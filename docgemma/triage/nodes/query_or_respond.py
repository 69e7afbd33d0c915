"""Node ② QUERY_OR_RESPOND: the model chooses to search, to reply, or to ask a question.

Constrained to ``RouteDecision``. A reply or a question ends the turn here, with the
message in the history; a search goes on with the model's short query (the patient's
own words when the model left it empty). Code has the last word on a reply: when the
message itself matches a condition page above the knowledge base's relevance
threshold, it is searched anyway — small models answer symptoms with small talk, and
an untriaged symptom is the costly mistake.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from docgemma.kb.retrieve import RELEVANCE_THRESHOLD
from docgemma.llm.repair import ModelFailure
from docgemma.triage import llm_calls, stream
from docgemma.triage.demographics import Demographics
from docgemma.triage.deps import TriageDeps
from docgemma.triage.follow_ups import follow_up_questions
from docgemma.triage.patient_text import DEFAULT_QUESTION, clean_reply
from docgemma.triage.prompts import ROUTE_SYSTEM, ROUTE_USER
from docgemma.triage.schemas import RouteAction, RouteDecision
from docgemma.triage.state import TriageState, with_turn

GREETING_REPLY = "Hello. I can help you decide where to get care for your symptoms."
INVITE = "What symptoms would you like help with today?"


async def query_or_respond(state: TriageState, runtime: Runtime[TriageDeps]) -> dict[str, Any]:
    deps = runtime.context
    stream.step("query_or_respond", "Reading your message")
    demographics = Demographics.model_validate(state.get("demographics") or {})
    user = ROUTE_USER.format(
        history=llm_calls.history_text(state.get("messages") or []),
        demographics=demographics.describe(),
        message=state["message"],
    )
    calls = [*state.get("llm_calls", []), "route"]
    try:
        decision = await llm_calls.structured(
            deps.llm, llm_calls.as_messages(ROUTE_SYSTEM, user), RouteDecision, purpose="route"
        )
    except ModelFailure:
        return {"route": "fallback", "fallback": True, "llm_calls": calls}
    reasoning = state.get("reasoning", "") + stream.reason(
        "query_or_respond", f"Router decision: {decision.action.value}."
    )
    if decision.action is not RouteAction.RETRIEVE:
        match = await _page_match(deps, state["message"])
        if match is not None:
            reasoning += stream.reason(
                "query_or_respond",
                f"The message matches the page {match[0]} ({match[1]:.2f} ≥ "
                f"{RELEVANCE_THRESHOLD}): searching instead.",
            )
            decision = RouteDecision(action=RouteAction.RETRIEVE, search_query="")
    if decision.action is RouteAction.RETRIEVE:
        query = " ".join(decision.search_query.split()) or state["message"]
        return {
            "route": "retrieve",
            "search_query": query,
            "reasoning": reasoning,
            "llm_calls": calls,
        }
    reply = clean_reply(decision.message)
    if decision.action is RouteAction.REPLY:
        reply = reply or GREETING_REPLY
        if not reply.endswith("?"):
            reply += " " + INVITE
    elif not reply.endswith("?"):
        reply = DEFAULT_QUESTION
    stream.answer("query_or_respond", reply)
    return {
        "route": decision.action.value,
        "direct_reply": reply,
        "answer": reply,
        "follow_ups": follow_up_questions(None, None),
        "messages": with_turn(state, reply),
        "reasoning": reasoning,
        "llm_calls": calls,
    }


async def _page_match(deps: TriageDeps, message: str) -> tuple[str, float] | None:
    """The best page for the raw message when it passes the relevance threshold."""
    hits = await asyncio.to_thread(deps.kb.search, message, role=deps.role, k=1)
    if hits and hits[0].score >= RELEVANCE_THRESHOLD:
        return hits[0].page_id, hits[0].score
    return None

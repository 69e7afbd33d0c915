"""Node ⑥ DETERMINISTIC_ROUTER: the graph's conditional edges, as pure functions.

Each returns the next node's name from state alone and never writes state; the
decision after a classified result comes from ``rules.decide_next`` and is announced
as a trace event so the timeline can show why the loop continued or stopped. They are
coroutine functions only so that LangGraph calls them in the event loop: a plain
function it hands to a worker thread on every call, and while llama.cpp keeps both
cores busy that hand-off costs more than the decision.
"""

from __future__ import annotations

from typing import Literal

from docgemma.agent.context import known_patient_ids
from docgemma.agent.rules import decide_next
from docgemma.agent.state import AgentState
from docgemma.events import Decision, emit
from docgemma.tools.base import ToolRegistry
from docgemma.tools.outcomes import ToolErrorType


async def route_after_input(state: AgentState) -> Literal["intent_classify", "synthesize"]:
    answered = state.get("refusal") or state.get("clarification_request")
    return "synthesize" if answered else "intent_classify"


async def route_after_intent(state: AgentState) -> Literal["tool_select", "synthesize"]:
    if state.get("fallback") or state.get("intent") != "TOOL_NEEDED":
        return "synthesize"
    return "tool_select"


async def route_after_select(state: AgentState) -> Literal["tool_execute", "synthesize"]:
    if state.get("fallback") or not state.get("current_tool"):
        return "synthesize"
    return "tool_execute"


async def route_after_execute(
    state: AgentState,
) -> Literal["result_classify", "error_handler", "synthesize"]:
    last = state["tool_results"][-1]
    if last["executed"]:
        return "result_classify"
    if last["error_type"] in (None, ToolErrorType.REJECTED_BY_CLINICIAN):
        return "synthesize"
    return "error_handler"


async def route_after_result(
    state: AgentState, registry: ToolRegistry
) -> Literal["error_handler", "tool_select", "synthesize"]:
    """``registry``: the registered tools (bound by the graph); no pattern waits on others."""
    verdict = decide_next(
        state.get("tool_results", []),
        step_count=state.get("step_count", 0),
        user_query=state["user_query"],
        patient_known=bool(known_patient_ids(state)),
        registry=registry,
        skipped=state.get("skipped_tools", []),
        fallback=bool(state.get("fallback")),
    )
    emit(
        Decision(
            node="router",
            label="Deciding the next step",
            decision=verdict.action,
            reason=verdict.reason,
        )
    )
    return "error_handler" if verdict.action == "ask_user" else verdict.action

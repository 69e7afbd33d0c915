"""The triage graph's routing decisions: pure functions of the state, never writing it."""

from __future__ import annotations

from typing import Literal

from docgemma.triage.state import TriageState


def after_screen(state: TriageState) -> Literal["query_or_respond", "retrieve"]:
    """A fired red flag goes straight to retrieval: code decides, the model is not asked."""
    return "retrieve" if state.get("red_flags") else "query_or_respond"


def after_route(state: TriageState) -> Literal["retrieve", "fallback", "__end__"]:
    if state.get("fallback"):
        return "fallback"
    return "retrieve" if state.get("route") == "retrieve" else "__end__"


def after_retrieve(state: TriageState) -> Literal["process_tool_response", "fallback"]:
    return "fallback" if state.get("fallback") else "process_tool_response"


def after_process(state: TriageState) -> Literal["generate", "search_literature"]:
    return "generate" if state.get("route") == "generate" else "search_literature"


def after_generate(state: TriageState) -> Literal["router_respond", "fallback"]:
    return "fallback" if state.get("fallback") else "router_respond"


def after_respond(state: TriageState) -> Literal["fallback", "__end__"]:
    return "fallback" if state.get("fallback") else "__end__"

"""Wiring only: the triage conversation graph with the red-flag screen and the fallbacks.

screen → query_or_respond ─(reply / clarify)→ END
   └──(red flag)──→ retrieve → process_tool_response ─(nothing relevant)→ search_literature
                                      └→ generate ←──────────────────────────────┘
                                           → router_respond → END
any model failure → fallback → END
"""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from docgemma.triage.deps import TriageDeps
from docgemma.triage.nodes import router
from docgemma.triage.nodes.fallback import fallback
from docgemma.triage.nodes.generate import generate
from docgemma.triage.nodes.process_tool_response import process_tool_response
from docgemma.triage.nodes.query_or_respond import query_or_respond
from docgemma.triage.nodes.retrieve import retrieve
from docgemma.triage.nodes.router_respond import router_respond
from docgemma.triage.nodes.screen import screen
from docgemma.triage.nodes.search_literature import search_literature
from docgemma.triage.state import TriageInput, TriageState


def build_triage_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    graph = StateGraph(TriageState, context_schema=TriageDeps, input_schema=TriageInput)
    graph.add_node("screen", screen)
    graph.add_node("query_or_respond", query_or_respond)
    graph.add_node("retrieve", retrieve)
    graph.add_node("process_tool_response", process_tool_response)
    graph.add_node("search_literature", search_literature)
    graph.add_node("generate", generate)
    graph.add_node("router_respond", router_respond)
    graph.add_node("fallback", fallback)

    graph.add_edge(START, "screen")
    graph.add_conditional_edges("screen", router.after_screen)
    graph.add_conditional_edges("query_or_respond", router.after_route)
    graph.add_conditional_edges("retrieve", router.after_retrieve)
    graph.add_conditional_edges("process_tool_response", router.after_process)
    graph.add_edge("search_literature", "generate")
    graph.add_conditional_edges("generate", router.after_generate)
    graph.add_conditional_edges("router_respond", router.after_respond)
    graph.add_edge("fallback", END)
    return graph.compile(checkpointer=checkpointer)

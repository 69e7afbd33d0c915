"""Wiring only: the agent's seven nodes and the edges between them.

No prompts, rules or formatting live here. The router's decisions are pure
functions in ``nodes.router``; the error handler chooses its own successor with a
``Command``. The checkpointer is passed in (SQLite in the app, in-memory in tests).
"""

from __future__ import annotations

from functools import partial

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from docgemma.agent.deps import AgentDeps
from docgemma.agent.nodes.error_handler import error_handler
from docgemma.agent.nodes.input_assembly import input_assembly
from docgemma.agent.nodes.intent_classify import intent_classify
from docgemma.agent.nodes.result_classify import result_classify
from docgemma.agent.nodes.router import (
    route_after_execute,
    route_after_input,
    route_after_intent,
    route_after_result,
    route_after_select,
)
from docgemma.agent.nodes.synthesize import synthesize
from docgemma.agent.nodes.tool_execute import tool_execute
from docgemma.agent.nodes.tool_select import tool_select
from docgemma.agent.state import AgentInput, AgentState
from docgemma.tools.base import ToolRegistry


def build_graph(
    *, registry: ToolRegistry, checkpointer: BaseCheckpointSaver | None = None
) -> CompiledStateGraph:
    graph = StateGraph(AgentState, context_schema=AgentDeps, input_schema=AgentInput)
    graph.add_node("input_assembly", input_assembly)
    graph.add_node("intent_classify", intent_classify)
    graph.add_node("tool_select", tool_select)
    graph.add_node("tool_execute", tool_execute)
    graph.add_node("result_classify", result_classify)
    graph.add_node(
        "error_handler", error_handler, destinations=("tool_select", "tool_execute", "synthesize")
    )
    graph.add_node("synthesize", synthesize)

    graph.add_edge(START, "input_assembly")
    graph.add_conditional_edges("input_assembly", route_after_input)
    graph.add_conditional_edges("intent_classify", route_after_intent)
    graph.add_conditional_edges("tool_select", route_after_select)
    graph.add_conditional_edges("tool_execute", route_after_execute)
    graph.add_conditional_edges(
        "result_classify",
        partial(route_after_result, registry=registry),
        path_map=["error_handler", "tool_select", "synthesize"],
    )
    graph.add_edge("synthesize", END)
    return graph.compile(checkpointer=checkpointer)

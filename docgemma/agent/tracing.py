"""Trace events out of the nodes, and the node wrapper that times each step.

Events go to LangGraph's custom stream; outside a graph run (a node called directly
in a unit test) there is no writer and events are dropped.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.config import get_stream_writer
from langgraph.types import Command

from docgemma.agent.events import Decision, NodeFinished, NodeStarted, TraceEvent

log = logging.getLogger(__name__)

NODE_LABELS: dict[str, str] = {
    "input_assembly": "Reading the question",
    "intent_classify": "Understanding the request",
    "tool_select": "Choosing a source",
    "tool_execute": "Consulting the source",
    "result_classify": "Checking the result",
    "error_handler": "Handling a problem",
    "synthesize": "Writing the answer",
}


def emit(event: TraceEvent) -> None:
    try:
        writer = get_stream_writer()
    except (RuntimeError, KeyError):
        return
    writer(event.model_dump(mode="json"))


def decision(node: str, what: str, reason: str) -> dict[str, str]:
    """Emit a decision event and return it as the state's record of it."""
    emit(Decision(node=node, label=NODE_LABELS.get(node, ""), decision=what, reason=reason))
    return {"node": node, "decision": what, "reason": reason}


def timeline(
    title: str, detail: str = "", status: str = "done", duration_s: float | None = None
) -> dict[str, Any]:
    return {"title": title, "detail": detail, "status": status, "duration_s": duration_s}


NodeFn = Callable[..., Awaitable[Any]]


def traced(name: str) -> Callable[[NodeFn], NodeFn]:
    """Wrap a node: emit started/finished events with its duration and record the visit."""
    label = NODE_LABELS[name]

    def wrap(fn: NodeFn) -> NodeFn:
        @functools.wraps(fn)
        async def run(state: Any, runtime: Any) -> Any:
            emit(NodeStarted(node=name, label=label))
            start = time.perf_counter()
            result = await fn(state, runtime)
            duration = time.perf_counter() - start
            emit(NodeFinished(node=name, label=label, duration_s=round(duration, 4)))
            log.debug("node %s finished in %.3fs", name, duration)
            if isinstance(result, Command):
                update = dict(result.update or {})
                update["nodes_visited"] = [*update.get("nodes_visited", []), name]
                return Command(goto=result.goto, update=update)
            return {**result, "nodes_visited": [*result.get("nodes_visited", []), name]}

        return run

    return wrap

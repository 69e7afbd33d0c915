"""Trace events out of the nodes, the node wrapper that times each step, and the views
of a turn's recorded steps.

Events go to LangGraph's custom stream; outside a graph run (a node called directly
in a unit test) there is no writer and events are dropped. A step (``events.Step``)
is also returned by ``record`` for the node to put in the state's ``trace``: that one
record is where the turn's decisions and its reasoning timeline come from.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, TypeVar

from langgraph.types import Command

from docgemma.agent.outcome import TimelineEntry
from docgemma.events import (
    Decision,
    NodeFinished,
    NodeStarted,
    ResultClassified,
    Step,
    StepNote,
    ToolFinished,
    TraceEvent,
    emit,
    parse_event,
)
from docgemma.labels import NODE_LABELS, QUALITY_WORDS

log = logging.getLogger(__name__)

TIMELINE_SUMMARY_CHARS = 200
"""How much of a tool's result or the loaded chart the timeline shows, cut at a sentence
or word."""


def record(event: Step) -> dict[str, Any]:
    """Emit a step and return it as the entry for the state's ``trace``."""
    emit(event)
    return event.model_dump(mode="json")


Status = Literal["done", "error"]


def decision(
    node: str, what: str, reason: str, title: str = "", detail: str = "", status: Status = "done"
) -> dict[str, Any]:
    """Record a decision; with a ``title`` it is also a step of the reasoning timeline, whose
    ``detail`` is the reason unless given."""
    account = {"title": title, "detail": detail, "status": status}
    label = NODE_LABELS.get(node, "")
    return record(Decision(node=node, label=label, decision=what, reason=reason, **account))


def note(node: str, title: str, detail: str = "", status: Status = "done") -> dict[str, Any]:
    """Record a timeline step that decides nothing."""
    label = NODE_LABELS.get(node, "")
    return record(StepNote(node=node, label=label, title=title, detail=detail, status=status))


E = TypeVar("E")


def recorded(values: Mapping[str, Any], kind: type[E]) -> list[E]:
    """The turn's recorded steps of one kind, e.g. ``recorded(state, Decision)``."""
    return [e for e in map(parse_event, values.get("trace") or []) if isinstance(e, kind)]


def reasoning_timeline(values: Mapping[str, Any]) -> list[TimelineEntry]:
    """The clinician-readable steps of the turn, in order, read from its ``trace``."""
    entries = (_entry(parse_event(payload)) for payload in values.get("trace") or [])
    return [entry for entry in entries if entry is not None]


def _entry(event: TraceEvent) -> TimelineEntry | None:
    match event:
        case ToolFinished():
            status = "done" if event.ok else "error"
            title = f"Consulted the {event.tool_label}"
            return TimelineEntry(
                title=title, detail=event.summary, status=status, duration_s=event.duration_s
            )
        case ResultClassified():
            quality = QUALITY_WORDS.get(event.quality, event.quality.replace("_", " "))
            detail = f"{quality}: {event.summary}" if event.summary else quality
            return TimelineEntry(title="Checked the result", detail=detail)
        case Decision() if event.title:
            detail = event.detail or event.reason
            return TimelineEntry(title=event.title, detail=detail, status=event.status)
        case StepNote():
            return TimelineEntry(title=event.title, detail=event.detail, status=event.status)
    return None


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

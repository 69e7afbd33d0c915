"""What a saved conversation may bring back to life.

LangGraph's checkpoint serializer revives any class a checkpoint names unless it is
given an allowlist, and warns that it will refuse unlisted classes in a later version.
A checkpoint is data in a file or a database, so it is read strictly: LangGraph's own
safe types plus the few project types the graphs' states hold, named here by module
and class so this low layer imports none of the layers that define them.

Also when a turn is saved: once, as it ends (answered, paused for approval or failed),
and how both graphs' turns are run to that end (``stream_turn``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Durability

STATE_TYPES: tuple[tuple[str, str], ...] = (
    ("docgemma.labels", "ResultQuality"),
    ("docgemma.tools.outcomes", "ToolErrorType"),
    ("docgemma.severity", "Severity"),
)
"""Project classes stored in a graph's state (a test checks each one still exists)."""


SAVED_ON: Durability = "exit"
"""A turn's state is written when the run ends, interrupt and error included.

LangGraph's default writes a checkpoint after every step; on the app's SQLite file that
doubled the agent's own time per turn (measured by the benchmark, docs/benchmarks.md). A
turn cut off mid-way by a crash is asked again; a write it made is not repeated on the
record, because writes are created once per idempotency key.
"""


def checkpoint_serializer() -> JsonPlusSerializer:
    """The serializer every checkpointer of the project is built with."""
    return JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES)


async def stream_turn(
    graph: CompiledStateGraph, graph_input: Any, config: dict[str, Any], context: Any
) -> AsyncIterator[tuple[str, Any]]:
    """One turn of a graph: ``("custom", event)`` as nodes emit them and ``("values",
    state)`` after each step, so a turn ends with its state and needs no second read of
    the checkpoint, which is written once, at the end (``SAVED_ON``)."""
    async for mode, payload in graph.astream(
        graph_input,
        config,
        context=context,
        stream_mode=["custom", "values"],
        durability=SAVED_ON,
    ):
        yield mode, payload

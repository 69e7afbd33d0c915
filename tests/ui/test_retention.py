"""Retention: old images and idle conversations go, recent ones stay."""

from __future__ import annotations

import os
import time

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from docgemma.ui.retention import DAY, prune_checkpoints, prune_files


def test_files_older_than_the_limit_are_deleted(tmp_path):
    old, new = tmp_path / "a" / "old.png", tmp_path / "new.png"
    old.parent.mkdir()
    old.write_bytes(b"x")
    new.write_bytes(b"y")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    assert prune_files(tmp_path, 3600) == 1
    assert not old.exists() and new.exists()
    assert prune_files(tmp_path / "missing", 3600) == 0


class Count(TypedDict):
    n: int


async def test_threads_idle_past_the_limit_are_forgotten():
    saver = InMemorySaver()
    builder = StateGraph(Count)
    builder.add_node("bump", lambda s: {"n": s["n"] + 1})
    builder.add_edge(START, "bump")
    builder.add_edge("bump", END)
    graph = builder.compile(checkpointer=saver)
    for thread in ("a", "b"):
        await graph.ainvoke({"n": 0}, {"configurable": {"thread_id": thread}})
    assert await prune_checkpoints(saver, 30 * DAY) == 0
    assert await prune_checkpoints(saver, 30 * DAY, now=time.time() + 31 * DAY) == 2
    assert [c async for c in saver.alist(None)] == []

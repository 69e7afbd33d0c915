"""Fixtures for the agent tests: fake tools, an agent factory and scripted-reply helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from scripted_quotes import answering

from docgemma.agent.outcome import TurnResult
from docgemma.agent.service import Agent
from docgemma.config import Settings
from docgemma.llm.scripted import ScriptedBackend

from .fakes import FakeTools


def intent(
    kind: str = "TOOL_NEEDED", summary: str = "clinical task", tool: str | None = None
) -> dict[str, Any]:
    return {"intent": kind, "task_summary": summary, "suggested_tool": tool}


def select(tool: str) -> dict[str, str]:
    return {"tool_name": tool}


def quality(q: str, summary: str = "summary") -> dict[str, str]:
    return {"quality": q, "brief_summary": summary}


def retry(strategy: str = "retry_same") -> dict[str, str]:
    return {"strategy": strategy, "reasoning": "transient"}


@pytest.fixture
def tools() -> FakeTools:
    return FakeTools()


@pytest.fixture
def make_agent(settings: Settings, tools: FakeTools) -> Callable[..., Agent]:
    def make(llm: ScriptedBackend, **kwargs: Any) -> Agent:
        kwargs.setdefault("classifiers", {})
        return Agent.create(settings, llm, tools.registry(), **kwargs)

    return make


async def run(
    agent: Agent, message: str, thread: str = "t", **kwargs: Any
) -> tuple[list[Any], TurnResult]:
    """Run a turn; the events and the final result."""
    items = [item async for item in agent.run_turn(thread, message, **kwargs)]
    assert isinstance(items[-1], TurnResult)
    return items[:-1], items[-1]


def prompts(llm: ScriptedBackend) -> list[str]:
    return [call.prompt for call in llm.calls]


def cited(text: str, quote: str) -> Callable[..., dict[str, Any]]:
    """A cited answer of one statement quoting the source sentence that holds ``quote``."""
    return answering((quote, text))


NOTHING_CITED: dict[str, Any] = {"statements": []}
"""The model finds nothing in the sources that answers: the answer declines."""

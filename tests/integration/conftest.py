"""The whole agent on its real parts: the app's factory, the ten real tools, the embedded
FHIR server over HTTP on 127.0.0.1 (a fresh database per test, seeded with the synthetic
patients), SQLite conversation memory in the data folder, offline remote tools.

Only the model varies: the session's real embedded model (``real_llm``) or a
``ScriptedBackend`` where a test is about the write path rather than the model. What
the EHR holds is always checked over HTTP with httpx, never through the agent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from fhir_server import embedded_fhir
from prebuilt_indexes import seed_indexes

from docgemma.agent import factory
from docgemma.agent.outcome import ApprovalDecision, TurnResult
from docgemma.agent.service import Agent
from docgemma.config import Settings
from docgemma.ehr.client import EHRClient
from docgemma.events import LLMUsage, TraceEvent
from docgemma.llm.types import Message
from docgemma.tools.registry import build_registry

TOOL_NAMES = tuple(build_registry().names)
RAW_ERROR_MARKERS = (
    "Traceback",
    "Exception",
    "EHRError",
    "offline mode:",
    "not called",
    "malformed patient id",
    "Cannot reach FHIR server",
    "HTTP 4",
    "HTTP 5",
)


fhir_url = embedded_fhir("function")
"""A fresh embedded FHIR server per test: each scenario sees only its own writes."""


def search(fhir: httpx.Client, resource_type: str, **params: str) -> list[dict[str, Any]]:
    reply = fhir.get(f"/{resource_type}", params={**params, "_count": "200"})
    reply.raise_for_status()
    return [e["resource"] for e in reply.json().get("entry", [])]


def patient_ids_named(fhir: httpx.Client, name: str) -> list[str]:
    return sorted(p["id"] for p in search(fhir, "Patient", name=name.split()))


class RecordingLLM:
    """Passes every call to the real backend and keeps the messages (to inspect prompts)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.messages: list[tuple[str, list[Message]]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def structured(self, messages: Sequence[Message], schema: type, **kw: Any) -> Any:
        self.messages.append((schema.__name__, list(messages)))
        return await self._inner.structured(messages, schema, **kw)

    async def generate(self, messages: Sequence[Message], **kw: Any) -> Any:
        self.messages.append(("text", list(messages)))
        return await self._inner.generate(messages, **kw)

    def stream(self, messages: Sequence[Message], **kw: Any) -> Any:
        self.messages.append(("text", list(messages)))
        return self._inner.stream(messages, **kw)

    async def aclose(self) -> None:
        """The wrapped model belongs to the session fixture, not to the agent."""


@pytest.fixture
def app_agent(
    settings: Settings, fhir_url: str, monkeypatch: pytest.MonkeyPatch
) -> Callable[[Any], Any]:
    """``async with app_agent(llm) as agent``: the agent exactly as the app and CLI build it
    (``factory.build_agent``), with ``llm`` in place of the configured backend."""

    @asynccontextmanager
    async def make(llm: Any) -> AsyncIterator[Agent]:
        monkeypatch.setattr(factory, "create_backend", lambda _settings: llm)
        seed_indexes(settings.data_dir)
        agent = await factory.build_agent(settings, EHRClient.from_settings(settings, fhir_url))
        try:
            yield agent
        finally:
            await agent.aclose()

    return make


async def turn(
    agent: Agent, message: str, thread: str = "t", **kwargs: Any
) -> tuple[list[TraceEvent], TurnResult]:
    items = [item async for item in agent.run_turn(thread, message, **kwargs)]
    assert isinstance(items[-1], TurnResult)
    return items[:-1], items[-1]


async def resume(
    agent: Agent, decision: ApprovalDecision, thread: str = "t"
) -> tuple[list[TraceEvent], TurnResult]:
    items = [item async for item in agent.resume(thread, decision)]
    assert isinstance(items[-1], TurnResult)
    return items[:-1], items[-1]


def usage(events: list[TraceEvent]) -> list[LLMUsage]:
    return [e for e in events if isinstance(e, LLMUsage)]


def assert_clean_answer(result: TurnResult) -> None:
    """Regressions the design prevents: an answer exists, names no tool, shows no raw error."""
    text = result.final_response
    assert text.strip(), "empty final response"
    for name in TOOL_NAMES:
        assert name not in text, f"tool name {name!r} in the answer"
    for marker in RAW_ERROR_MARKERS:
        assert marker not in text, f"raw error text {marker!r} in the answer"

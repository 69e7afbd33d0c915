"""The API with its model engine killed mid-answer (SIGKILL, as an out-of-memory kill or a
crash in llama.cpp would end it), on the real Gemma 3 270M: the server stays up, the turn
ends with a clear message, health says the model is restarting and then ok, the next
question is answered, and nothing is lost: neither the conversation nor a pending write."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from docgemma.agent.answer.compose import FALLBACK_MESSAGE
from docgemma.api.client import DocGemmaClient, Turn
from docgemma.api.stream_events import ThinkingEvent, TokenEvent

from .conftest import KEYS, Server, medication_requests

pytestmark = pytest.mark.real_model


@pytest.fixture
def engine_server(real_api_server: Server) -> Server:
    """The session's API on the real tiny model (its engine is back before the test ends)."""
    return real_api_server


@pytest.fixture
def fhir_server(real_api_fhir: tuple[str, str]) -> tuple[str, str]:
    return real_api_fhir


def engine_pid(parent: int) -> int:
    """The engine process the API server started (its child running the engine worker)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"docgemma.llm.engine_worker" in command:
            return int(entry.name)
    raise AssertionError("no engine process under the API server")


async def model_states(url: str, until: str, seen: list[str], timeout: float = 180.0) -> None:
    key = {"Authorization": f"Bearer {KEYS['clinic-a']}"}  # details are for keyed callers
    async with httpx.AsyncClient(base_url=url, timeout=10, headers=key) as http:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = (await http.get("/health")).json()["model"]
            if not seen or seen[-1] != state:
                seen.append(state)
            if state == until and len(seen) > 1:
                return
            await asyncio.sleep(0.05)
    raise AssertionError(f"model states seen: {seen}")


@pytest.mark.timeout(1800)  # an API server on the real model starts in minutes on a busy host
async def test_a_killed_engine_loses_no_conversation_and_no_pending_write(
    engine_server: Server, fhir_server: tuple[str, str]
) -> None:
    before = len(medication_requests(fhir_server, "abc-123"))
    async with DocGemmaClient(engine_server.url, KEYS["clinic-a"], timeout=600) as api:
        proposed = await api.chat("Prescribe metformin 500 mg twice daily for abc-123")
        assert proposed.approval is not None and proposed.done.approval_pending
        first = engine_pid(engine_server.proc.pid)

        killed, states = [], []
        watcher: asyncio.Task[None] | None = None
        # the model's own answer, thought out first: the engine dies while it writes
        asked = {"thinking": True, "show_unverified": True}
        async for event in api.stream_chat("What is hypertension?", turn := Turn(), **asked):
            if isinstance(event, (ThinkingEvent, TokenEvent)) and not killed:
                os.kill(first, signal.SIGKILL)
                killed.append(first)
                watcher = asyncio.create_task(model_states(engine_server.url, "ok", states))
        assert killed and watcher is not None
        assert turn.error is None and turn.done is not None
        assert turn.done.final_response.startswith(FALLBACK_MESSAGE)
        assert turn.done.confidence == "low"
        await watcher
        assert "restarting" in states and states[-1] == "ok"
        assert engine_server.proc.poll() is None  # the server never went down
        assert engine_pid(engine_server.proc.pid) != first

        again = await api.chat(
            "What is hypertension?", session_id=turn.session_id, show_unverified=True
        )
        assert again.done is not None and FALLBACK_MESSAGE not in again.done.final_response
        history = await api.history(turn.session_id)
        assert [m["content"] for m in history["messages"] if m["role"] == "user"] == [
            "What is hypertension?",
            "What is hypertension?",
        ]

        pending = (await api.history(proposed.session_id))["pending_approval"]
        assert pending["approval_id"] == proposed.approval.approval_id
        decided = await api.decide(proposed.approval.approval_id, "approve")
        assert decided.done is not None and not decided.done.approval_pending
    assert len(medication_requests(fhir_server, "abc-123")) == before + 1

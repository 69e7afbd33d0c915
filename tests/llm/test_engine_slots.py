"""The server engine supervised as the worker is, against a stand-in ``llama-server`` (no
model weights): it starts and reports ready, a killed engine (its guard or the server
itself) ends only the call in flight and comes back, a call made meanwhile waits for it, a
server that cannot start says why, and no server outlives the app's end of the pipe."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from docgemma.llm import engine_backend
from docgemma.llm.engine_process import EngineFailed, ModelRestarted
from docgemma.llm.engine_slots import SlotsEngineBackend
from docgemma.llm.errors import ModelUnavailable
from docgemma.llm.grammar import gbnf
from docgemma.llm.llamacpp import call_seed
from docgemma.llm.types import messages

pytestmark = pytest.mark.server  # starts the engine's processes

FAKE = Path(__file__).with_name("fake_llama_server.py")
QUESTION = messages(("user", "Define fever."))


class Echo(BaseModel):
    grammar: str = Field(max_length=64)
    seed: int
    temperature: float


class Vocabulary:
    def tokenize(self, text: bytes, add_bos: bool, special: bool) -> list[int]:
        return list(range(len(text.split())))


@pytest.fixture
def fake_binary(tmp_path: Path) -> Path:
    binary = tmp_path / "llama-server"
    binary.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    binary.chmod(0o755)
    return binary


@pytest.fixture
async def engine(
    tmp_path: Path, fake_binary: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[SlotsEngineBackend]:
    monkeypatch.setattr(engine_backend, "_vocabulary", lambda path: Vocabulary())
    model = tmp_path / "model.gguf"
    model.write_bytes(b"")
    backend = await asyncio.to_thread(
        SlotsEngineBackend, model, server_binary=fake_binary, slots=2, seed=5, start_timeout_s=60
    )
    yield backend
    await backend.aclose()


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


async def wait_for(backend: SlotsEngineBackend, state: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while backend.state != state:
        assert time.monotonic() < deadline, f"engine still {backend.state}"
        await asyncio.sleep(0.05)


async def test_the_engine_starts_and_sends_the_grammar_and_seed(engine: SlotsEngineBackend) -> None:
    assert engine.state == "ok" and engine.chat_format == "gemma"
    assert "slots" in engine.engine.system_info
    echoed = await engine.structured(QUESTION, Echo, prefix="")
    assert echoed.value.grammar == hashlib.sha256(gbnf(Echo).encode()).hexdigest()
    assert echoed.value.seed == call_seed(5, engine.render(QUESTION), 0.0)
    streamed = [p async for p in engine.stream(QUESTION, max_tokens=3)]
    assert streamed == ["t0 ", "t1 ", "t2 "]


async def test_an_over_long_prompt_is_a_clear_error(engine: SlotsEngineBackend) -> None:
    with pytest.raises(ModelUnavailable, match="too long"):
        await engine.complete("this prompt is too long")


@pytest.mark.parametrize("victim", ["guard", "server"])
async def test_a_killed_engine_ends_the_call_and_comes_back(
    engine: SlotsEngineBackend, victim: str
) -> None:
    guard = engine.pid
    assert guard is not None
    (server,) = children(guard)
    pieces: list[str] = []
    with pytest.raises(ModelRestarted, match="SIGKILL"):
        async for piece in engine.stream(QUESTION, max_tokens=100):
            pieces.append(piece)
            if len(pieces) == 2:
                os.kill(guard if victim == "guard" else server, signal.SIGKILL)
    assert gone(server) and gone(guard)  # neither outlives the other
    await wait_for(engine, "ok")
    assert engine.pid != guard and engine.engine.restarts == 1
    assert (await engine.complete("again", max_tokens=2)).text


async def test_a_call_made_while_the_engine_restarts_waits_for_it(
    engine: SlotsEngineBackend,
) -> None:
    assert engine.pid is not None
    os.kill(engine.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while engine.engine.restarts == 0:  # the watcher has seen the death and is restarting
        assert time.monotonic() < deadline, "the engine's death went unnoticed"
        await asyncio.sleep(0.01)
    answer = await engine.generate(QUESTION, temperature=0.0, max_tokens=2)
    assert json.loads(answer.text)["temperature"] == 0.0 and engine.state == "ok"


async def test_a_server_that_cannot_start_says_why(
    tmp_path: Path, fake_binary: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_backend, "_vocabulary", lambda path: Vocabulary())
    model = tmp_path / "model.broken"
    model.write_bytes(b"")
    with pytest.raises(EngineFailed, match="exited with code 3") as failed:
        await asyncio.to_thread(SlotsEngineBackend, model, server_binary=fake_binary)
    assert "failed to load the model" in str(failed.value)


async def test_closing_the_backend_ends_guard_and_server(engine: SlotsEngineBackend) -> None:
    guard = engine.pid
    assert guard is not None
    (server,) = children(guard)
    await engine.aclose()
    assert gone(guard) and gone(server)


def test_a_killed_app_takes_the_server_with_it(tmp_path: Path, fake_binary: Path) -> None:
    """The guard is killed as an app killed by ``kill -9`` would leave it: at once."""
    socket = tmp_path / "engine.sock"
    guard = subprocess.Popen(
        [sys.executable, "-m", "docgemma.llm.engine_server", "--binary", str(fake_binary)]
        + ["--model", str(tmp_path / "m.gguf"), "--socket", str(socket)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert guard.stdout is not None
    ready = json.loads(guard.stdout.readline())
    assert ready["ready"] and ready["pid"] in children(guard.pid)
    guard.kill()
    guard.wait()
    assert gone(ready["pid"])

"""llama.cpp in its own supervised process, on the real Gemma 3 270M GGUF: it computes what
the in-process backend computes, a crash ends only the call in flight, the engine comes
back by itself, and an engine that cannot start says why."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from docgemma.assets import model_file
from docgemma.llm.engine_backend import EngineBackend
from docgemma.llm.engine_process import EngineFailed, ModelRestarted
from docgemma.llm.types import messages

pytestmark = pytest.mark.real_model

QUESTION = messages(("system", "You are a terse clinical assistant."), ("user", "Define fever."))


class Term(BaseModel):
    term: str = Field(max_length=30)


@pytest.fixture
async def engine() -> AsyncIterator[EngineBackend]:
    backend = await asyncio.to_thread(EngineBackend, model_file("gemma3-270m"), n_ctx=2048)
    yield backend
    await backend.aclose()


async def wait_for(backend: EngineBackend, state: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while backend.state != state:
        assert time.monotonic() < deadline, f"engine still {backend.state}"
        await asyncio.sleep(0.05)


async def test_the_engine_computes_what_the_in_process_backend_computes(
    engine: EngineBackend,
) -> None:
    """Greedy text, a constrained object and token counts: the same either side. The
    in-process model is a fresh one, as the engine's is: the suite's shared model carries
    the state other tests leave in it."""
    from docgemma.llm.llamacpp import LlamaCppBackend

    real_llm = LlamaCppBackend(model_file("gemma3-270m"), n_ctx=2048, seed=0)
    here = await real_llm.generate(QUESTION, temperature=0.0, max_tokens=24)
    there = await engine.generate(QUESTION, temperature=0.0, max_tokens=24)
    assert there.text == here.text and there.usage == here.usage
    assert (await engine.structured(QUESTION, Term)).value == (
        await real_llm.structured(QUESTION, Term)
    ).value
    streamed = "".join([p async for p in engine.stream(QUESTION, temperature=0.0, max_tokens=24)])
    assert streamed == here.text
    assert engine.count_tokens("metformin 500 mg") == real_llm.count_tokens("metformin 500 mg")
    assert engine.render(QUESTION) == real_llm.render(QUESTION)
    real_llm._llm.close()


async def test_a_killed_engine_ends_the_call_and_comes_back(engine: EngineBackend) -> None:
    first = engine.pid
    pieces: list[str] = []
    with pytest.raises(ModelRestarted, match="SIGKILL"):
        async for piece in engine.stream(QUESTION, temperature=0.7, max_tokens=400):
            pieces.append(piece)
            if len(pieces) == 2:
                os.kill(first, signal.SIGKILL)
    assert len(pieces) >= 2
    assert engine.state in ("restarting", "ok")
    await wait_for(engine, "ok")
    assert engine.pid != first and engine.engine.restarts == 1
    again = await engine.generate(QUESTION, temperature=0.0, max_tokens=8)
    assert again.text.strip()


async def test_a_call_made_while_the_engine_restarts_waits_for_it(engine: EngineBackend) -> None:
    os.kill(engine.pid, signal.SIGKILL)
    answer = await engine.generate(QUESTION, temperature=0.0, max_tokens=8)
    assert answer.text.strip() and engine.state == "ok"


async def test_concurrent_calls_all_complete(engine: EngineBackend) -> None:
    """Calls queue in the engine in arrival order; none is lost or mixed with another."""
    alone = (await engine.generate(QUESTION, temperature=0.0, max_tokens=12)).text
    together = await asyncio.gather(
        *(engine.generate(QUESTION, temperature=0.0, max_tokens=12) for _ in range(4))
    )
    assert [g.text for g in together] == [alone] * 4


async def test_an_engine_that_cannot_start_says_why(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)  # a header and nothing else
    started = time.monotonic()
    with pytest.raises(EngineFailed) as failed:
        await asyncio.to_thread(EngineBackend, broken, n_ctx=512)
    text = str(failed.value)
    assert "before it was ready" in text and "CPU has" in text and "make engine" in text
    assert time.monotonic() - started < 120


async def test_closing_the_backend_ends_the_engine(engine: EngineBackend) -> None:
    pid = engine.pid
    await engine.aclose()
    with pytest.raises(ProcessLookupError):
        for _ in range(100):
            os.kill(pid, 0)
            await asyncio.sleep(0.1)
    with pytest.raises(EngineFailed):
        await engine.generate(QUESTION, max_tokens=4)


async def test_the_engine_exits_mid_generation_when_the_app_is_gone(engine: EngineBackend) -> None:
    """The app's end closes the engine's standard input; a generation still running is
    not waited for (a killed evaluation had left its engine at full CPU)."""
    pid = engine.pid
    long = messages(("user", "Write the numbers from 1 to 2000, separated by commas."))
    call = asyncio.create_task(engine.generate(long, max_tokens=3000, temperature=0.0))
    await asyncio.sleep(2.0)
    assert not call.done(), "the generation ended before the test could close the engine"
    proc = engine.engine.current()
    assert proc is not None and proc.stdin is not None
    proc.stdin.close()
    closed = time.monotonic()
    with pytest.raises(ProcessLookupError):
        while time.monotonic() - closed < 3.0:
            os.kill(pid, 0)
            await asyncio.sleep(0.05)
    call.cancel()

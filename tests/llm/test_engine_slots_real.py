"""The server engine on the real Gemma 3 270M and the real ``llama-server``: two constrained
calls at once each get a valid object, and a server killed mid-answer ends that answer with
``ModelRestarted`` and answers the next call. Skipped where llama-server was never built
(``python docgemma/engine_build.py server``): the worker engine is the default."""

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
from docgemma.engine_build import server_binary
from docgemma.llm.engine_process import ModelRestarted
from docgemma.llm.engine_slots import SlotsEngineBackend
from docgemma.llm.types import messages

pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(server_binary() is None, reason="llama-server is not built here"),
]


class Finding(BaseModel):
    organ: str = Field(max_length=20)
    severe: bool


def question(text: str):
    return messages(("system", "Answer as JSON."), ("user", text))


@pytest.fixture
async def engine() -> AsyncIterator[SlotsEngineBackend]:
    backend = await asyncio.to_thread(
        SlotsEngineBackend,
        model_file("gemma3-270m"),
        server_binary=server_binary(),
        slots=2,
        n_ctx=1024,
    )
    yield backend
    await backend.aclose()


@pytest.mark.timeout(300)
async def test_two_constrained_calls_at_once_each_get_a_valid_object(
    engine: SlotsEngineBackend,
) -> None:
    engine.prepare([Finding])
    first, second = await asyncio.gather(
        engine.structured(question("A broken femur: which organ?"), Finding),
        engine.structured(question("Acute hepatitis: which organ?"), Finding),
    )
    for answer in (first, second):
        assert isinstance(answer.value, Finding) and answer.value.organ
        assert answer.usage.completion_tokens > 0


@pytest.mark.timeout(300)
async def test_a_server_killed_mid_answer_comes_back(engine: SlotsEngineBackend) -> None:
    guard = engine.pid
    assert guard is not None
    (server,) = [int(c) for c in Path(f"/proc/{guard}/task/{guard}/children").read_text().split()]
    pieces: list[str] = []
    with pytest.raises(ModelRestarted, match="SIGKILL"):
        async for piece in engine.stream(question("Define fever."), temperature=0.7):
            pieces.append(piece)
            if len(pieces) == 2:
                os.kill(server, signal.SIGKILL)
    deadline = time.monotonic() + 120
    while engine.state != "ok" or engine.pid == guard:
        assert time.monotonic() < deadline, f"engine still {engine.state}"
        await asyncio.sleep(0.05)
    again = await engine.generate(question("Define fever."), temperature=0.0, max_tokens=8)
    assert again.text.strip()

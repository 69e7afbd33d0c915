"""The embedded backend's limits and threads: an over-long prompt, an abandoned stream, and
the one thread every model call runs on."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from docgemma.llm.errors import ModelUnavailable
from docgemma.llm.threads import iterate_in_thread
from docgemma.llm.types import messages


def slow(finished: threading.Event, threads: list[str] | None = None) -> Iterator[str]:
    """A producer that would run for ten seconds; it notes its thread and when it ends."""
    if threads is not None:
        threads.append(threading.current_thread().name)
    try:
        for i in range(1000):
            time.sleep(0.01)
            yield str(i)
    finally:
        finished.set()


async def test_an_abandoned_stream_stops_its_worker_thread() -> None:
    """Closing the consumer early must end the producer (it holds the model's lock)."""
    finished = threading.Event()
    stream = iterate_in_thread(slow(finished))
    assert await anext(stream) == "0"
    await stream.aclose()
    assert await asyncio.to_thread(finished.wait, 2.0)


async def test_a_stream_given_an_executor_runs_there_and_still_stops_when_abandoned() -> None:
    finished = threading.Event()
    threads: list[str] = []
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="model") as executor:
        stream = iterate_in_thread(slow(finished, threads), executor)
        assert await anext(stream) == "0"
        await stream.aclose()
        assert await asyncio.to_thread(finished.wait, 2.0)
        # the executor's one thread is free again for the next call
        assert await asyncio.wrap_future(executor.submit(lambda: "next")) == "next"
    assert threads == ["model_0"]


@pytest.mark.real_model
async def test_every_kind_of_call_runs_on_the_model_thread(
    real_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """llama.cpp's CPU threads belong to the thread calling it: one calling thread keeps
    them warm from call to call."""
    threads: set[int] = set()
    complete = real_llm._llm.create_completion

    def recorded(*args: Any, **kwargs: Any) -> Any:
        threads.add(threading.get_ident())
        return complete(*args, **kwargs)

    monkeypatch.setattr(real_llm._llm, "create_completion", recorded)
    hello = messages(("user", "Say hello"))
    await real_llm.generate(hello, max_tokens=2)
    [piece async for piece in real_llm.stream(hello, max_tokens=2)]
    await real_llm.complete("Hello", max_tokens=2)
    [piece async for piece in real_llm.stream(hello, max_tokens=2)]
    assert len(threads) == 1
    assert threads != {threading.get_ident()}  # not the event loop's thread


@pytest.mark.real_model
async def test_a_prompt_longer_than_the_context_is_a_typed_error(real_llm: Any) -> None:
    """llama.cpp's bare ValueError would escape the graph's fallback; it must be typed."""
    long = messages(("user", "heart " * 6000))
    with pytest.raises(ModelUnavailable, match="context"):
        await real_llm.generate(long, max_tokens=8)
    with pytest.raises(ModelUnavailable, match="context"):
        [piece async for piece in real_llm.stream(long, max_tokens=8)]
    assert (await real_llm.generate(messages(("user", "Hi")), max_tokens=2)).text is not None

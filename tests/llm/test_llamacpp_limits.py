"""The embedded backend's limits: an over-long prompt and an abandoned stream."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from docgemma.llm.errors import ModelUnavailable
from docgemma.llm.threads import iterate_in_thread
from docgemma.llm.types import messages


async def test_an_abandoned_stream_stops_its_worker_thread() -> None:
    """Closing the consumer early must end the producer (it holds the model's lock)."""
    finished = threading.Event()

    def slow() -> Iterator[str]:
        try:
            for i in range(1000):
                time.sleep(0.01)
                yield str(i)
        finally:
            finished.set()

    stream = iterate_in_thread(slow())
    assert await anext(stream) == "0"
    await stream.aclose()
    assert await asyncio.to_thread(finished.wait, 2.0)


@pytest.mark.real_model
async def test_a_prompt_longer_than_the_context_is_a_typed_error(real_llm: Any) -> None:
    """llama.cpp's bare ValueError would escape the graph's fallback; it must be typed."""
    long = messages(("user", "heart " * 6000))
    with pytest.raises(ModelUnavailable, match="context"):
        await real_llm.generate(long, max_tokens=8)
    with pytest.raises(ModelUnavailable, match="context"):
        [piece async for piece in real_llm.stream(long, max_tokens=8)]
    assert (await real_llm.generate(messages(("user", "Hi")), max_tokens=2)).text is not None

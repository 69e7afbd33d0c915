"""Sampled calls on the real embedded model are reproducible one by one: the same prompt at
the same temperature gives the same text however many calls ran before it.

Each draw here follows a call with another prompt, so that llama.cpp evaluates the prompt
the same way each time: a prompt already in its cache is evaluated differently (its last
token alone), which moves the logits by rounding and can change a sampled token."""

from __future__ import annotations

from typing import Any

import pytest

PROMPT = "Write one sentence about the heart:"
OTHER = "List three fruits:"


@pytest.mark.real_model
async def test_a_sampled_call_does_not_depend_on_the_calls_before_it(real_llm: Any) -> None:
    await real_llm.complete(OTHER, temperature=1.0, max_tokens=8)
    first = await real_llm.complete(PROMPT, temperature=1.0, max_tokens=24)
    for _ in range(3):  # each advanced llama-cpp-python's own seed chain
        await real_llm.complete(OTHER, temperature=1.0, max_tokens=8)
    again = await real_llm.complete(PROMPT, temperature=1.0, max_tokens=24)
    await real_llm.complete(OTHER, temperature=1.0, max_tokens=8)
    streamed = [p async for p in real_llm.stream_complete(PROMPT, temperature=1.0, max_tokens=24)]
    assert first.text.strip()
    assert again.text == first.text == "".join(streamed)


@pytest.mark.real_model
async def test_another_temperature_samples_afresh(real_llm: Any) -> None:
    """A retry at another temperature (the answer check's) is a new draw, not a replay."""
    texts = set()
    for t in (0.9, 1.0, 1.1, 1.2):
        await real_llm.complete(OTHER, temperature=1.0, max_tokens=8)
        texts.add((await real_llm.complete(PROMPT, temperature=t, max_tokens=24)).text)
    assert len(texts) > 1

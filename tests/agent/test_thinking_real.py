"""Thinking on the real embedded model: a reasoning channel, an answer, nothing kept."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

import pytest

from docgemma.agent.service import Agent
from docgemma.config import Settings
from docgemma.events import AnswerToken, ThinkingToken
from docgemma.llm.types import Message

from .conftest import run
from .fakes import FakeTools

pytestmark = pytest.mark.real_model


class PromptLog:
    """The real backend, with every prompt it is sent written down."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.prompts: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def structured(self, messages: Sequence[Message], schema: Any, **kw: Any) -> Any:
        self.prompts.append(self.inner.render(messages))
        return await self.inner.structured(messages, schema, **kw)

    async def generate(self, messages: Sequence[Message], **kw: Any) -> Any:
        self.prompts.append(self.inner.render(messages))
        return await self.inner.generate(messages, **kw)

    def stream(self, messages: Sequence[Message], **kw: Any) -> AsyncIterator[str]:
        self.prompts.append(self.inner.render(messages))
        return self.inner.stream(messages, **kw)

    def stream_complete(self, prompt: str, **kw: Any) -> AsyncIterator[str]:
        self.prompts.append(prompt)
        return self.inner.stream_complete(prompt, **kw)


@pytest.fixture
def seeded_llm() -> Iterator[Any]:
    """A fresh instance: sampling at T=0.5 then starts from the same seed in any test order."""
    from docgemma.assets import model_file
    from docgemma.llm.llamacpp import LlamaCppBackend

    backend = LlamaCppBackend(model_file("gemma3-270m"), n_ctx=2048, seed=0)
    yield backend
    backend._llm.close()


async def test_thinking_streams_apart_and_stays_out_of_the_next_prompt(
    seeded_llm, settings: Settings
) -> None:
    settings.node_generation = {"synthesize": {"max_tokens": 32}}
    settings.thinking_min_tokens = 12
    llm = PromptLog(seeded_llm)
    agent = Agent.create(settings, llm, FakeTools().registry())
    events, result = await run(
        agent,
        "What is hypertension?",
        thread="think",
        thinking=True,
        thinking_budget=32,
        show_unverified=True,  # no source: the model's own answer, where thinking shows
    )
    thought = "".join(e.text for e in events if isinstance(e, ThinkingToken))
    answer = "".join(e.text for e in events if isinstance(e, AnswerToken))
    # the forced span streams on its own channel; what the tiny model writes in it (words,
    # or only line breaks on some CPUs' arithmetic) is not the point
    assert thought and answer.strip() and not result.fallback_used
    assert any("after thinking" in t.detail for t in result.reasoning_timeline)

    before = len(llm.prompts)
    _, second = await run(
        agent, "And its causes?", thread="think", thinking=False, show_unverified=True
    )
    later = llm.prompts[before:]
    assert later and second.final_response.strip()
    history = (
        later[-1].split("Previous conversation:\n", 1)[1].split("\n\nClinician's question:")[0]
    )
    # exactly the question and the visible answer: the reasoning never became history
    assert history == f"Clinician: What is hypertension?\nAssistant: {result.final_response[:400]}"

"""Budget forcing: loop accounting on a scripted backend, then the real model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from docgemma.llm.errors import ConfigurationError
from docgemma.llm.scripted import ScriptedBackend
from docgemma.llm.thinking import (
    DELIMITERS,
    ThinkingConfig,
    ThinkingDelimiters,
    delimiters_for,
    stream_think_then_answer,
    think_then_answer,
)
from docgemma.llm.types import messages

SPECIAL_CLOSE = ThinkingDelimiters(open="<unused94>", close="<unused0>")


def complete_prompts(backend: ScriptedBackend) -> list[str]:
    return [c.prompt for c in backend.calls if c.kind == "complete"]


def test_registry_has_the_three_families() -> None:
    assert delimiters_for("medgemma") == ThinkingDelimiters(open="<unused94>", close="<unused95>")
    assert delimiters_for("qwen").close == "<|im_start|>answer"
    assert delimiters_for("generic").open == "<think>"
    with pytest.raises(ConfigurationError, match="valid: medgemma, qwen, generic"):
        delimiters_for("llama")
    assert set(DELIMITERS) == {"medgemma", "qwen", "generic"}


async def test_early_ends_are_ignored_num_ignore_times() -> None:
    backend = ScriptedBackend(
        ["first idea</think>", "second idea</think>", "third idea</think>", "Final answer."]
    )
    result = await think_then_answer(backend, "Q?", ThinkingConfig(num_ignore=2, max_tokens=100))

    assert result.waits_inserted == 2
    assert result.close_emitted_naturally and not result.forced_close
    assert result.answer == "Final answer."
    prompts = complete_prompts(backend)
    assert prompts[0] == "Q?<think>\n"
    assert prompts[1].endswith("first idea Wait") and prompts[2].endswith("second idea Wait")
    assert prompts[3].endswith("third idea\n</think>\n")
    # 2 + 1 (Wait) + 2 + 1 (Wait) + 2 tokens, counted by the scripted word counter
    assert result.thinking_tokens == 8
    assert result.thinking.count("Wait") == 2


async def test_min_tokens_keeps_thinking_until_reached() -> None:
    backend = ScriptedBackend(["a b</think>", "c d e f</think>", "done"])
    result = await think_then_answer(backend, "Q?", ThinkingConfig(min_tokens=6, max_tokens=100))
    assert result.waits_inserted == 1
    assert result.thinking_tokens == 2 + 1 + 4
    assert result.close_emitted_naturally


async def test_exhausted_budget_forces_the_close_delimiter() -> None:
    backend = ScriptedBackend(["one two three four five six seven", "answer"])
    config = ThinkingConfig(family="medgemma", max_tokens=5, num_ignore=3)
    result = await think_then_answer(backend, messages(("user", "Q?")), config)

    assert result.forced_close and not result.close_emitted_naturally
    assert result.waits_inserted == 0
    assert complete_prompts(backend)[-1].endswith("seven\n<unused95>\n")
    assert backend.calls[0].max_tokens == 5
    assert backend.calls[1].max_tokens == config.answer_max_tokens


async def test_budget_shrinks_with_every_segment() -> None:
    backend = ScriptedBackend(["a b c</think>", "d e f g h i j k l m", "answer"])
    result = await think_then_answer(backend, "Q?", ThinkingConfig(num_ignore=5, max_tokens=10))
    assert [c.max_tokens for c in backend.calls[:2]] == [10, 6]
    assert result.forced_close and result.waits_inserted == 1


async def test_stream_separates_thinking_from_answer() -> None:
    backend = ScriptedBackend(["pondering</think>", "more</think>", "the answer"])
    chunks = [
        c async for c in stream_think_then_answer(backend, "Q?", ThinkingConfig(num_ignore=1))
    ]
    thinking = "".join(c.text for c in chunks if c.channel == "thinking")
    answer = "".join(c.text for c in chunks if c.channel == "answer")
    assert thinking == "pondering Waitmore"
    assert answer == "the answer"
    assert chunks[-1].data["result"]["waits_inserted"] == 1


class Recording:
    """Wraps a real backend and records every raw-completion prompt (to count inserted Waits)."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self.prompts: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)

    async def complete(self, prompt: str, **kwargs: Any) -> Any:
        self.prompts.append(prompt)
        return await self._backend.complete(prompt, **kwargs)

    async def stream_complete(self, prompt: str, **kwargs: Any) -> AsyncIterator[str]:
        self.prompts.append(prompt)
        async for piece in self._backend.stream_complete(prompt, **kwargs):
            yield piece


@pytest.mark.real_model
@pytest.mark.parametrize("n", [1, 2])
async def test_real_model_each_close_up_to_n_is_replaced_by_a_wait(
    real_llm: Any, few_shot: str, n: int
) -> None:
    """Each close the model writes is suppressed with a Wait, up to ``n``; the model may
    instead run into the budget after a Wait, and then no further Wait may follow. With the
    same code, the tiny test model, greedy, closed twice on earlier machines and once, then ran into
    the budget, on a slower one (2026-11-24): greedy decoding is not the same everywhere,
    since llama.cpp's arithmetic differs between CPUs."""
    backend = Recording(real_llm)
    config = ThinkingConfig(num_ignore=n, max_tokens=160, answer_max_tokens=12)
    result = await think_then_answer(backend, few_shot, config)

    assert 1 <= result.waits_inserted <= n  # the few-shot model closes its first thinking
    assert result.waits_inserted == n or result.forced_close
    # after the last suppression the model either closes again or runs into the budget
    assert result.close_emitted_naturally != result.forced_close
    assert result.thinking_tokens <= config.max_tokens
    thinking_prompts = backend.prompts[:-1]
    assert len(thinking_prompts) == result.waits_inserted + 1
    assert all(p.endswith("Wait") for p in thinking_prompts[1:])
    assert backend.prompts[-1].endswith("\n</think>\n")
    assert result.answer


@pytest.mark.real_model
async def test_real_model_small_budget_forces_close(real_llm: Any, few_shot: str) -> None:
    backend = Recording(real_llm)
    config = ThinkingConfig(family="medgemma", max_tokens=6, num_ignore=1, answer_max_tokens=8)
    chunks = [c async for c in stream_think_then_answer(backend, few_shot, config)]
    result = chunks[-1].data["result"]

    assert result["forced_close"] and result["waits_inserted"] == 0
    assert result["thinking_tokens"] <= 6
    assert backend.prompts[-1].endswith("\n<unused95>\n")
    assert any(c.channel == "thinking" and c.text for c in chunks)
    assert any(c.channel == "answer" and c.text for c in chunks)


@pytest.mark.real_model
async def test_special_token_close_ends_thinking_naturally(
    real_llm: Any, special_few_shot: str
) -> None:
    """Before stops by token id, the invisible delimiter ran thinking into the budget."""
    config = ThinkingConfig(
        family="medgemma", delimiters=SPECIAL_CLOSE, max_tokens=120, answer_max_tokens=8
    )
    result = await think_then_answer(real_llm, special_few_shot, config)
    assert result.close_emitted_naturally and not result.forced_close
    assert result.waits_inserted == 0 and result.thinking_tokens < 30


@pytest.mark.real_model
async def test_special_token_close_is_ignored_once_then_wait(
    real_llm: Any, special_few_shot: str
) -> None:
    """The tiny model does not close again after a Wait, so the budget then closes for it."""
    backend = Recording(real_llm)
    config = ThinkingConfig(
        family="medgemma",
        delimiters=SPECIAL_CLOSE,
        num_ignore=1,
        max_tokens=60,
        answer_max_tokens=8,
    )
    result = await think_then_answer(backend, special_few_shot, config)
    assert result.waits_inserted == 1
    assert result.thinking.count("Wait") >= 1 and result.thinking_tokens <= 60
    assert backend.prompts[1].endswith("Wait")
    assert backend.prompts[-1].endswith("\n<unused0>\n")

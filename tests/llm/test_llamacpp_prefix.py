"""Saved prefix states on the real embedded model: alternating nodes reload their system
prompt instead of evaluating it again, and the answer is the one a cold context gives."""

from __future__ import annotations

import pytest

from docgemma.llm.llamacpp_prefix import PrefixUse, common_prefix
from docgemma.llm.types import Message

pytestmark = pytest.mark.real_model

SYSTEM_A = "You answer medical questions in one short sentence, plainly and precisely. " * 5
SYSTEM_B = "You sort clinical requests into categories and never explain the choice. " * 5


def chat(system: str, user: str) -> list[Message]:
    return [Message(role="system", content=system), Message(role="user", content=user)]


def prepare(backend, messages) -> PrefixUse:
    prompt, chars = backend._rendered(messages)
    with backend._lock:
        return backend.prefixes.prepare(prompt, chars)


def test_common_prefix_counts_shared_leading_tokens() -> None:
    assert common_prefix([1, 2, 3], [1, 2, 4, 5]) == 2 and common_prefix([], [1]) == 0


async def test_alternating_prompts_load_their_saved_prefix(real_llm) -> None:
    a, b = chat(SYSTEM_A, "What is aspirin?"), chat(SYSTEM_B, "Check warfarin")
    cold = await real_llm.generate(a, temperature=0.0, max_tokens=12)
    await real_llm.generate(b, temperature=0.0, max_tokens=12)
    assert prepare(real_llm, a) is PrefixUse.LOADED
    prefix_tokens = real_llm._llm.n_tokens
    assert prefix_tokens >= 32 and prefix_tokens < real_llm.count_tokens(real_llm.render(a))
    warm = await real_llm.generate(a, temperature=0.0, max_tokens=12)
    assert warm.text == cold.text
    assert prepare(real_llm, chat(SYSTEM_A, "What is ibuprofen?")) is PrefixUse.LIVE


async def test_a_prompt_without_a_long_stable_prefix_is_left_alone(real_llm) -> None:
    assert prepare(real_llm, chat("Be brief.", "Hello")) is PrefixUse.SKIPPED
    assert prepare(real_llm, [Message(role="user", content="Hello")]) is PrefixUse.SKIPPED

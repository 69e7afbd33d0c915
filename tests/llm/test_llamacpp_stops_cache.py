"""The embedded backend on the real model: special-token stops (MedGemma's thinking
delimiters) and reuse of the cached prompt prefix."""

from __future__ import annotations

from typing import Any

import pytest

from docgemma.llm.llamacpp_sampling import special_stop_ids


@pytest.mark.real_model
def test_medgemma_delimiters_are_single_special_tokens(real_llm: Any) -> None:
    llm = real_llm._llm
    ids = special_stop_ids(llm, ["<unused94>", "<unused95>", "<unused0>", "</think>", "Answer:"])
    expected = {
        llm.tokenize(s.encode(), add_bos=False, special=True)[0]
        for s in ("<unused94>", "<unused95>", "<unused0>")
    }
    assert ids == expected and len(ids) == 3
    # what made the stop string invisible: the token renders as empty text
    assert all(llm.detokenize([i], special=False) == b"" for i in ids)


@pytest.mark.real_model
async def test_special_token_stop_ends_a_completion(real_llm: Any, special_few_shot: str) -> None:
    prompt = special_few_shot + "<unused94>\n"
    free = await real_llm.complete(prompt, max_tokens=40)
    stopped = await real_llm.complete(prompt, max_tokens=40, stop=["<unused0>"])
    assert free.finish_reason == "length"
    assert stopped.finish_reason == "stop"
    assert stopped.usage.completion_tokens < free.usage.completion_tokens
    assert stopped.text.strip() and free.text.startswith(stopped.text)
    pieces = [p async for p in real_llm.stream_complete(prompt, max_tokens=40, stop=["<unused0>"])]
    assert "".join(pieces) == stopped.text


@pytest.mark.real_model
async def test_second_call_evaluates_only_the_new_suffix(real_llm: Any) -> None:
    """llama-cpp-python keeps the last prompt in its KV cache; a shared prefix is not re-run."""
    llm = real_llm._llm
    evaluated: list[int] = []
    original = llm.eval

    def counting_eval(tokens: Any) -> None:
        evaluated.append(len(tokens))
        original(tokens)

    stable = "You are a careful clinical assistant. " * 20
    llm.eval = counting_eval
    try:
        await real_llm.complete(stable + "Question: What is sepsis?\n", max_tokens=1)
        first = sum(evaluated)
        evaluated.clear()
        second_prompt = stable + "Question: What is asthma?\n"
        await real_llm.complete(second_prompt, max_tokens=1)
        second = sum(evaluated)
    finally:
        del llm.eval
    prompt_tokens = len(llm.tokenize(second_prompt.encode(), special=True))
    assert first >= prompt_tokens - 5
    assert second < prompt_tokens // 4

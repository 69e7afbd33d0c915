"""A completion prefix opens the model's own turn in every backend, never a user message.

Tool selection's analytical prefix ("Analyzing the task requirements, ") is the start of the
model's answer: the schema constrains what the model writes after it. Each backend is
checked on the prompt or request it actually sends; the embedded llama.cpp backend and a
real llama.cpp server also run it on the tiny model and the output must still validate.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Literal

import pytest
import respx
from pydantic import BaseModel

from docgemma.llm import chat_format
from docgemma.llm.errors import ConfigurationError
from docgemma.llm.grammar import gbnf
from docgemma.llm.openai import OpenAIBackend, response_format
from docgemma.llm.scripted import ScriptedBackend
from docgemma.llm.types import Generation, ImageInput, Message, messages

PREFIX = "Analyzing the task requirements, "
BASE = "http://llm.test/v1"
QUERY = "Check FDA warnings for dofetilide"


class Choice(BaseModel):
    tool_name: Literal["check_drug_safety", "search_patient", "search_medical_literature"]


CHAT = messages(
    (
        "system",
        "Select the single most appropriate tool: check_drug_safety (drug warnings), "
        "search_patient (find a patient by name), search_medical_literature (studies).",
    ),
    ("user", f"User query: {QUERY}"),
)
REPLY = '{"tool_name": "check_drug_safety"}'


def assert_turn_starts_with_prefix(prompt: str, turn_start: str) -> None:
    """The prompt ends with the model's turn marker and the prefix; the user turn lacks it."""
    assert prompt.endswith(turn_start + PREFIX), prompt[-120:]
    assert PREFIX not in prompt[: -len(PREFIX)]


async def test_scripted_records_the_prefix_after_the_assistant_marker() -> None:
    llm = ScriptedBackend([REPLY])
    out = await llm.structured(CHAT, Choice, prefix=PREFIX)
    call = llm.calls[0]
    assert out.value.tool_name == "check_drug_safety" and out.text == REPLY
    assert call.prefix == PREFIX
    assert_turn_starts_with_prefix(call.prompt, "<assistant>")
    assert all(PREFIX not in m.content for m in call.messages)


def chat_reply(content: str) -> dict[str, Any]:
    return {"choices": [{"message": {"content": content}, "finish_reason": "stop"}], "usage": {}}


@respx.mock
async def test_vllm_dialect_continues_a_final_assistant_message() -> None:
    route = respx.post(f"{BASE}/chat/completions").respond(json=chat_reply(REPLY))
    backend = OpenAIBackend(BASE, "m", dialect="vllm", max_retries=0)
    out = await backend.structured(CHAT, Choice, prefix=PREFIX)
    await backend.aclose()
    sent = json.loads(route.calls.last.request.content)
    assert sent["messages"][-1] == {"role": "assistant", "content": PREFIX}
    assert [m["role"] for m in sent["messages"]] == ["system", "user", "assistant"]
    assert PREFIX not in sent["messages"][1]["content"]
    assert sent["continue_final_message"] is True and sent["add_generation_prompt"] is False
    assert sent["response_format"] == response_format(Choice, "vllm")  # still constrained
    assert out.value.tool_name == "check_drug_safety"


@respx.mock
async def test_vllm_dialect_without_a_prefix_sends_a_plain_chat() -> None:
    route = respx.post(f"{BASE}/chat/completions").respond(json=chat_reply(REPLY))
    backend = OpenAIBackend(BASE, "m", dialect="vllm", max_retries=0)
    await backend.structured(CHAT, Choice)
    await backend.aclose()
    sent = json.loads(route.calls.last.request.content)
    assert sent["messages"][-1]["role"] == "user" and "continue_final_message" not in sent


@respx.mock
async def test_llamacpp_dialect_sends_a_raw_completion_with_the_schema_grammar() -> None:
    route = respx.post(f"{BASE}/completions").respond(
        json={"choices": [{"text": REPLY, "finish_reason": "stop"}], "usage": {}}
    )
    backend = OpenAIBackend(BASE, "m", dialect="llamacpp", chat_format_name="chatml")
    out = await backend.structured(CHAT, Choice, prefix=PREFIX)
    await backend.aclose()
    sent = json.loads(route.calls.last.request.content)
    assert_turn_starts_with_prefix(sent["prompt"], "<|im_start|>assistant\n")
    assert sent["prompt"] == chat_format.render_chatml(CHAT) + PREFIX
    assert sent["grammar"] == gbnf(Choice) and out.value.tool_name == "check_drug_safety"


async def test_llamacpp_dialect_refuses_an_image_it_cannot_put_in_a_raw_prompt() -> None:
    backend = OpenAIBackend(BASE, "m", dialect="llamacpp")
    pictured = [Message(role="user", content="x", images=(ImageInput(data=b"png"),))]
    with pytest.raises(ConfigurationError, match="image"):
        await backend.structured(pictured, Choice, prefix=PREFIX)
    await backend.aclose()


@respx.mock
async def test_openai_dialect_leaves_the_prefix_out_and_says_so(caplog) -> None:
    route = respx.post(f"{BASE}/chat/completions").respond(json=chat_reply(REPLY))
    backend = OpenAIBackend(BASE, "m", dialect="openai", max_retries=0)
    with caplog.at_level(logging.WARNING, logger="docgemma.llm.openai"):
        await backend.structured(CHAT, Choice, prefix=PREFIX)
        await backend.structured(CHAT, Choice, prefix=PREFIX)
    await backend.aclose()
    sent = json.loads(route.calls.last.request.content)
    assert all(PREFIX not in m["content"] for m in sent["messages"])
    assert sum("prefix left out" in r.message for r in caplog.records) == 1


async def test_transformers_puts_the_prefix_before_the_outlines_generation(monkeypatch) -> None:
    from docgemma.llm.transformers import TransformersBackend

    backend = object.__new__(TransformersBackend)
    backend._format = chat_format.get_format("gemma")
    seen: list[str] = []

    def generate(prompt: str, schema: type[BaseModel], temperature: float, budget: int):
        seen.append(prompt)
        return Generation(text=REPLY)

    monkeypatch.setattr(backend, "_structured_sync", generate)
    out = await backend.structured(CHAT, Choice, prefix=PREFIX)
    assert_turn_starts_with_prefix(seen[0], "<start_of_turn>model\n")
    assert out.value.tool_name == "check_drug_safety"


async def test_vllm_in_process_prompt_ends_with_the_prefix(monkeypatch) -> None:
    from docgemma.llm import vllm as vllm_module
    from docgemma.llm.vllm import VLLMBackend

    backend = object.__new__(VLLMBackend)
    backend._format = chat_format.get_format("chatml")
    backend.supports_vision = False
    backend.seed = 0
    backend._sampling = lambda **kw: kw
    monkeypatch.setattr(vllm_module, "_structured_params", lambda schema: {"schema": schema})
    sent: list[Any] = []

    def run(inputs: list[dict[str, Any]], params: dict[str, Any]) -> list[Generation]:
        sent.extend(inputs)
        return [Generation(text=REPLY) for _ in inputs]

    monkeypatch.setattr(backend, "_run", run)
    out = await backend.structured(CHAT, Choice, prefix=PREFIX)
    batch = backend.structured_batch([CHAT, CHAT], Choice, prefix=PREFIX)
    for inputs in sent:
        assert_turn_starts_with_prefix(inputs["prompt"], "<|im_start|>assistant\n")
    assert out.value.tool_name == "check_drug_safety" and len(batch) == 2 and len(sent) == 3


@pytest.mark.real_model
async def test_embedded_llamacpp_continues_the_prefix_under_the_grammar(real_llm: Any) -> None:
    """Gemma 3 270M: the prompt ends in the model's turn plus the prefix, the JSON validates."""
    prompts: list[str] = []
    complete = real_llm._complete_sync

    def spy(prompt: str, **kw: Any) -> Generation:
        prompts.append(prompt)
        return complete(prompt, **kw)

    real_llm._complete_sync = spy
    out = await real_llm.structured(CHAT, Choice, prefix=PREFIX)
    assert_turn_starts_with_prefix(prompts[0], "<start_of_turn>model\n")
    assert prompts[0] == real_llm.render(CHAT) + PREFIX
    assert isinstance(out.value, Choice) and out.key_order == ["tool_name"]
    assert out.text.lstrip().startswith("{") and PREFIX not in out.text


@pytest.mark.real_model
async def test_real_llamacpp_server_continues_the_prefix_under_the_grammar(
    llama_server: str,
) -> None:
    backend = OpenAIBackend(llama_server, "gemma-3-270m", dialect="llamacpp", timeout_s=60, seed=0)
    try:
        out = await backend.structured(CHAT, Choice, prefix=PREFIX)
    finally:
        await backend.aclose()
    assert isinstance(out.value, Choice) and out.key_order == ["tool_name"]
    assert out.usage.completion_tokens > 0

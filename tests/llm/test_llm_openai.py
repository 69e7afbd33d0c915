"""The OpenAI-compatible backend: request shapes and retries (respx), failure bounds on real
sockets, and a real llama.cpp server process for structured output and streaming."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import respx

from docgemma.agent.schemas import IntentClassification
from docgemma.llm.errors import ConfigurationError, ModelUnavailable
from docgemma.llm.openai import Dialect, OpenAIBackend, RequestRejected, response_format
from docgemma.llm.schema import schema_key_order, token_budget
from docgemma.llm.thinking import ThinkingConfig, think_then_answer
from docgemma.llm.types import ImageInput, Message, messages
from docgemma.tools.registry import build_registry

REGISTRY = build_registry()

BASE = "http://llm.test/v1"
INTENT_JSON = (
    '{"intent": "TOOL_NEEDED", "task_summary": "check ibuprofen", '
    '"suggested_tool": "check_drug_safety"}'
)


def chat_reply(content: str) -> dict[str, Any]:
    return {
        "choices": [
            {"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7},
    }


@pytest.fixture
async def backend() -> AsyncIterator[OpenAIBackend]:
    b = OpenAIBackend(
        BASE, "served-model", dialect="vllm", timeout_s=5, max_retries=2, backoff_s=0.01
    )
    yield b
    await b.aclose()


def test_dialects_shape_response_format() -> None:
    vllm = response_format(IntentClassification, "vllm")
    assert vllm["type"] == "json_schema"
    assert (
        vllm["json_schema"]["name"] == "IntentClassification"
        and vllm["json_schema"]["strict"] is True
    )
    assert list(vllm["json_schema"]["schema"]["properties"]) == schema_key_order(
        IntentClassification
    )
    llamacpp = response_format(IntentClassification, "llamacpp")
    assert llamacpp["type"] == "json_object" and "properties" in llamacpp["schema"]
    assert response_format(IntentClassification, "openai")["type"] == "json_schema"


@respx.mock
async def test_structured_sends_schema_and_budget(backend: OpenAIBackend) -> None:
    route = respx.post(f"{BASE}/chat/completions").respond(json=chat_reply(INTENT_JSON))
    out = await backend.structured(messages(("user", "Is ibuprofen safe?")), IntentClassification)

    sent = json.loads(route.calls.last.request.content)
    assert sent["max_tokens"] == token_budget(IntentClassification)
    assert sent["response_format"] == response_format(IntentClassification, "vllm")
    assert out.value.intent == "TOOL_NEEDED"
    assert out.key_order == ["intent", "task_summary", "suggested_tool"]
    assert out.usage.prompt_tokens == 11 and out.usage.completion_tokens == 7


@respx.mock
async def test_retries_5xx_and_429_then_succeeds(backend: OpenAIBackend) -> None:
    route = respx.post(f"{BASE}/completions").mock(
        side_effect=[
            httpx.Response(503),
            httpx.Response(429),
            httpx.Response(200, json={"choices": [{"text": "ok", "finish_reason": "stop"}]}),
        ]
    )
    out = await backend.complete("prompt")
    assert out.text == "ok" and route.call_count == 3


@respx.mock
async def test_gives_up_after_max_retries(backend: OpenAIBackend) -> None:
    route = respx.post(f"{BASE}/completions").respond(502)
    with pytest.raises(ModelUnavailable, match="after 3 attempt"):
        await backend.complete("prompt")
    assert route.call_count == 3


@respx.mock
async def test_client_error_is_not_retried(backend: OpenAIBackend) -> None:
    route = respx.post(f"{BASE}/chat/completions").respond(400, text="unsupported response_format")
    with pytest.raises(RequestRejected, match="HTTP 400.*unsupported response_format"):
        await backend.generate(messages(("user", "hi")))
    assert route.call_count == 1


@respx.mock
async def test_images_become_data_url_parts() -> None:
    route = respx.post(f"{BASE}/chat/completions").respond(json=chat_reply("a chest X-ray"))
    image = ImageInput(data=b"\x89PNG fake", mime_type="image/png")
    vision = OpenAIBackend(BASE, "m", supports_vision=True)
    await vision.generate([Message(role="user", content="Describe", images=(image,))])
    parts = json.loads(route.calls.last.request.content)["messages"][0]["content"]
    assert parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert parts[-1] == {"type": "text", "text": "Describe"}
    blind = OpenAIBackend(BASE, "m")
    with pytest.raises(ConfigurationError, match="does not accept images"):
        await blind.generate([Message(role="user", content="Describe", images=(image,))])
    await vision.aclose()
    await blind.aclose()


@respx.mock
async def test_special_token_stops_keep_special_tokens_on_vllm(backend: OpenAIBackend) -> None:
    """vLLM drops special tokens before matching stops unless told not to."""
    route = respx.post(f"{BASE}/completions").respond(
        json={"choices": [{"text": "thought", "finish_reason": "stop"}]}
    )
    await backend.complete("x", stop=["<unused95>", "<end_of_turn>"])
    assert json.loads(route.calls.last.request.content)["skip_special_tokens"] is False
    await backend.complete("x", stop=["Answer:"])
    assert "skip_special_tokens" not in json.loads(route.calls.last.request.content)
    other = OpenAIBackend(BASE, "m", dialect="openai", max_retries=0)
    await other.complete("x", stop=["<unused95>"])
    sent = json.loads(route.calls.last.request.content)
    assert sent["stop"] == ["<unused95>"] and "skip_special_tokens" not in sent
    await other.aclose()


@respx.mock
async def test_sse_stream_is_parsed(backend: OpenAIBackend) -> None:
    events = [{"choices": [{"text": t}]} for t in ("Par", "acet", "amol")]
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    respx.post(f"{BASE}/completions").respond(
        200, text=body, headers={"content-type": "text/event-stream"}
    )
    assert [p async for p in backend.stream_complete("x")] == ["Par", "acet", "amol"]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_closed_port_is_unavailable_within_the_timeout() -> None:
    backend = OpenAIBackend(f"http://127.0.0.1:{closed_port()}/v1", "m", timeout_s=2, max_retries=3)
    start = time.monotonic()
    with pytest.raises(ModelUnavailable, match="ConnectError"):
        await backend.structured(messages(("user", "hi")), IntentClassification)
    assert time.monotonic() - start < 3.0  # one 2 s budget, not one per retry
    await backend.aclose()


async def test_silent_server_is_unavailable_within_the_timeout() -> None:
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        backend = OpenAIBackend(
            f"http://127.0.0.1:{silent.getsockname()[1]}/v1", "m", timeout_s=1.5, max_retries=5
        )
        start = time.monotonic()
        with pytest.raises(ModelUnavailable):
            _ = [p async for p in backend.stream(messages(("user", "hi")))]
        assert time.monotonic() - start < 3.0  # one 1.5 s budget, not one per retry
        await backend.aclose()


# ── against a real llama.cpp server process ──


@contextlib.asynccontextmanager
async def served(
    base_url: str, dialect: Dialect = "llamacpp", retries: int = 3
) -> AsyncIterator[OpenAIBackend]:
    backend = OpenAIBackend(
        base_url, "gemma-3-270m", dialect=dialect, timeout_s=60, max_retries=retries, seed=0
    )
    try:
        yield backend
    finally:
        await backend.aclose()


EXAMPLE = messages(
    ("system", "Classify the request as JSON."),
    ("user", "Is aspirin safe in pregnancy?"),
    (
        "assistant",
        '{"intent": "TOOL_NEEDED", "task_summary": "Aspirin safety in pregnancy.", '
        '"suggested_tool": "check_drug_safety"}',
    ),
)


@pytest.mark.real_model
async def test_real_server_structured_output(llama_server: str) -> None:
    async with served(llama_server) as backend:
        out = await backend.structured(
            [*EXAMPLE, Message(role="user", content="Is ibuprofen safe with warfarin?")],
            IntentClassification,
        )
        args = await backend.structured(
            messages(
                ("user", "Check aspirin"),
                ("assistant", '{"drug_name": "aspirin"}'),
                ("user", "Check metformin"),
            ),
            REGISTRY["check_drug_safety"].args,
        )
    assert out.value.intent in ("DIRECT", "TOOL_NEEDED")
    assert out.key_order == schema_key_order(IntentClassification)[: len(out.key_order)]
    assert out.usage.completion_tokens > 0
    assert args.value.drug_name and args.key_order == ["drug_name"]


@pytest.mark.real_model
async def test_real_server_rejects_the_vllm_dialect(llama_server: str) -> None:
    """llama-cpp-python answers the json_schema envelope with a 500 naming json_object."""
    async with served(llama_server, dialect="vllm", retries=0) as backend:
        with pytest.raises(ModelUnavailable, match="HTTP 500.*json_object"):
            await backend.structured(messages(("user", "hi")), IntentClassification)


@pytest.mark.real_model
async def test_real_server_streams_chat_and_completion(llama_server: str) -> None:
    async with served(llama_server) as backend:
        chat = [
            p
            async for p in backend.stream(
                messages(("user", "Name three antibiotics.")), max_tokens=16
            )
        ]
        prompt = backend.render(messages(("user", "List vitamins.")))
        raw = [p async for p in backend.stream_complete(prompt, max_tokens=12)]
        whole = await backend.complete(prompt, max_tokens=12)
    assert len(chat) > 3 and "".join(chat).strip()
    assert len(raw) > 3
    assert "".join(raw) == whole.text  # the same greedy continuation, streamed or not
    assert whole.finish_reason == "length" and whole.usage.completion_tokens == 12


@pytest.mark.real_model
async def test_real_server_budget_forcing(llama_server: str, few_shot: str) -> None:
    async with served(llama_server) as backend:
        result = await think_then_answer(
            backend, few_shot, ThinkingConfig(num_ignore=1, max_tokens=120, answer_max_tokens=8)
        )
    assert result.waits_inserted == 1
    assert "Wait" in result.thinking and result.answer

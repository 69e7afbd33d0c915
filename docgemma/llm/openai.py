"""Any OpenAI-compatible server (vLLM in production, llama.cpp's server in tests).

Servers disagree on how a JSON schema goes into ``response_format``, so the request
shape follows a configured dialect. Retries, deadlines and server-sent events live in
``http_retry``: a server that is down or silent surfaces as ``ModelUnavailable``
within the configured timeout.
"""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal

import httpx
from pydantic import BaseModel

from docgemma.config import Settings
from docgemma.llm import chat_format
from docgemma.llm.errors import ConfigurationError, SchemaNotSupported
from docgemma.llm.http_retry import RequestRejected, RetryingClient
from docgemma.llm.schema import check_bounded, json_schema, token_budget, validated
from docgemma.llm.types import Generation, Message, StructuredGeneration, T, Usage

__all__ = ["Dialect", "OpenAIBackend", "RequestRejected", "response_format"]

Dialect = Literal["vllm", "llamacpp", "openai"]
_CHARS_PER_TOKEN = 4
_SPECIAL_TOKEN = re.compile(r"<[^<>\s]+>")
"""What a special-token stop looks like: ``<unused95>``, ``<end_of_turn>``, ``<|im_end|>``."""


def response_format(schema: type[BaseModel], dialect: Dialect) -> dict[str, Any]:
    """The ``response_format`` value this server dialect accepts for ``schema``.

    llama-cpp-python's server rejects the ``json_schema`` form and takes the schema
    beside ``json_object``; vLLM and OpenAI take the ``json_schema`` envelope.
    """
    body = json_schema(schema)
    if dialect == "llamacpp":
        return {"type": "json_object", "schema": body}
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": body, "strict": True},
    }


def completion_stop_fields(stop: Sequence[str], dialect: Dialect) -> dict[str, Any]:
    """``stop`` for a raw completion, and on vLLM the switch that lets special tokens match.

    Servers drop special tokens (MedGemma's ``<unused95>``) from the text before
    matching stop strings, so such a stop never fires. vLLM keeps them when asked with
    ``skip_special_tokens: false``; llama.cpp servers and OpenAI have no portable
    switch, so there a special-token delimiter is not seen and budget forcing closes
    thinking only at its token budget.
    """
    if not stop:
        return {}
    fields: dict[str, Any] = {"stop": list(stop)}
    if dialect == "vllm" and any(_SPECIAL_TOKEN.fullmatch(s) for s in stop):
        fields["skip_special_tokens"] = False
    return fields


def message_payload(message: Message, supports_vision: bool) -> dict[str, Any]:
    """One chat message in OpenAI form; images become data-URL content parts."""
    if not message.images:
        return {"role": message.role, "content": message.content}
    if not supports_vision:
        raise ConfigurationError(
            "this model does not accept images; "
            "set DOCGEMMA_OPENAI_SUPPORTS_VISION=true for a vision model"
        )
    parts: list[dict[str, Any]] = [
        {
            "type": "image_url",
            "image_url": {
                "url": f"data:{img.mime_type};base64,{base64.b64encode(img.data).decode()}"
            },
        }
        for img in message.images
    ]
    parts.append({"type": "text", "text": message.content})
    return {"role": message.role, "content": parts}


def _usage(data: dict[str, Any]) -> Usage:
    usage = data.get("usage") or {}
    return Usage(
        prompt_tokens=usage.get("prompt_tokens") or 0,
        completion_tokens=usage.get("completion_tokens") or 0,
    )


class OpenAIBackend:
    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "EMPTY",
        dialect: Dialect = "vllm",
        timeout_s: float = 60.0,
        max_retries: int = 3,
        chat_format_name: str = "auto",
        supports_vision: bool = False,
        seed: int | None = None,
        backoff_s: float = 0.25,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.model = model
        self.dialect = dialect
        self.supports_vision = supports_vision
        self.seed = seed
        self.chat_format = "gemma" if chat_format_name == "auto" else chat_format_name
        self._render, self._turn_stops = chat_format.get_format(self.chat_format)
        self._http = RetryingClient(
            base_url,
            api_key=api_key,
            timeout_s=timeout_s,
            max_retries=max_retries,
            backoff_s=backoff_s,
            transport=transport,
        )

    @property
    def timeout_s(self) -> float:
        return self._http.timeout_s

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAIBackend:
        return cls(
            settings.openai_base_url,
            settings.openai_model,
            api_key=settings.openai_api_key,
            dialect=settings.openai_dialect,
            timeout_s=settings.llm_timeout_s,
            max_retries=settings.llm_max_retries,
            chat_format_name=settings.chat_format,
            supports_vision=settings.openai_supports_vision,
            seed=settings.seed,
        )

    # ── schemas ──
    def prepare(self, schemas: Sequence[type[BaseModel]]) -> None:
        for schema in schemas:
            check_bounded(schema)
            try:
                json.dumps(response_format(schema, self.dialect))
            except Exception as exc:  # pydantic cannot express some types as JSON schema
                raise SchemaNotSupported(f"{schema.__name__}: no JSON schema: {exc}") from exc

    # ── calls ──
    def _payload(self, **fields: Any) -> dict[str, Any]:
        payload = {"model": self.model, **fields}
        if self.seed is not None:
            payload["seed"] = self.seed
        return payload

    def render(self, messages: Sequence[Message], *, add_generation_prompt: bool = True) -> str:
        return self._render(messages, add_generation_prompt)

    def count_tokens(self, text: str) -> int:
        """An estimate (no local tokenizer): the server's usage figures are the real count."""
        return -(-len(text) // _CHARS_PER_TOKEN)

    def _chat(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        return [message_payload(m, self.supports_vision) for m in messages]

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> StructuredGeneration[T]:
        self.prepare([schema])
        start = time.perf_counter()
        data = await self._http.post_json(
            "/chat/completions",
            self._payload(
                messages=self._chat(messages),
                temperature=temperature,
                max_tokens=max_tokens if max_tokens is not None else token_budget(schema),
                response_format=response_format(schema, self.dialect),
            ),
        )
        choice = data["choices"][0]
        return validated(
            schema,
            Generation(
                text=choice["message"].get("content") or "",
                usage=_usage(data),
                latency_s=time.perf_counter() - start,
                finish_reason=choice.get("finish_reason"),
            ),
        )

    async def generate(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation:
        start = time.perf_counter()
        data = await self._http.post_json(
            "/chat/completions",
            self._payload(
                messages=self._chat(messages),
                temperature=temperature,
                max_tokens=max_tokens,
                **({"stop": list(stop)} if stop else {}),
            ),
        )
        choice = data["choices"][0]
        return Generation(
            text=choice["message"].get("content") or "",
            usage=_usage(data),
            latency_s=time.perf_counter() - start,
            finish_reason=choice.get("finish_reason"),
        )

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        payload = self._payload(
            messages=self._chat(messages),
            temperature=temperature,
            max_tokens=max_tokens,
            **({"stop": list(stop)} if stop else {}),
        )
        async for event in self._http.events("/chat/completions", payload):
            for choice in event.get("choices") or ():
                piece = (choice.get("delta") or {}).get("content")
                if piece:
                    yield piece

    async def complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation:
        start = time.perf_counter()
        data = await self._http.post_json(
            "/completions",
            self._payload(
                prompt=prompt,
                temperature=temperature,
                max_tokens=max_tokens,
                **completion_stop_fields(stop, self.dialect),
            ),
        )
        choice = data["choices"][0]
        return Generation(
            text=choice.get("text") or "",
            usage=_usage(data),
            latency_s=time.perf_counter() - start,
            finish_reason=choice.get("finish_reason"),
        )

    async def stream_complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        payload = self._payload(
            prompt=prompt,
            temperature=temperature,
            max_tokens=max_tokens,
            **completion_stop_fields(stop, self.dialect),
        )
        async for event in self._http.events("/completions", payload):
            for choice in event.get("choices") or ():
                if choice.get("text"):
                    yield choice["text"]

    async def aclose(self) -> None:
        await self._http.aclose()

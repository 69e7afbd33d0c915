"""Any OpenAI-compatible server (vLLM in production, llama.cpp's server in tests).

Servers disagree on how a JSON schema goes into ``response_format``, so the request
shape follows a configured dialect. Retries, deadlines and server-sent events live in
``http_retry``: a server that is down or silent surfaces as ``ModelUnavailable``
within the configured timeout.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
from pydantic import BaseModel

from docgemma.config import Settings
from docgemma.llm import chat_format
from docgemma.llm.errors import ConfigurationError, SchemaNotSupported
from docgemma.llm.grammar import gbnf
from docgemma.llm.http_retry import RequestRejected, RetryingClient
from docgemma.llm.openai_request import (
    Dialect,
    completion_stop_fields,
    message_payload,
    response_format,
    usage_of,
)
from docgemma.llm.schema import check_bounded, token_budget, validated
from docgemma.llm.types import Generation, Message, StructuredGeneration, T

__all__ = ["Dialect", "OpenAIBackend", "RequestRejected", "response_format"]

log = logging.getLogger(__name__)

_CHARS_PER_TOKEN = 4


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
        self._warned_prefix = False
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
        prefix: str = "",
    ) -> StructuredGeneration[T]:
        """A constrained reply; how ``prefix`` opens the model's turn depends on the dialect.

        vLLM continues a final assistant message (``continue_final_message``) and
        constrains only what it adds. llama.cpp servers cannot continue a chat message,
        so there the prompt is rendered here, the prefix appended, and the schema's
        grammar sent with a raw completion. The hosted OpenAI API has no way to start the
        model's turn: the prefix is left out, with a warning.
        """
        self.prepare([schema])
        budget = max_tokens if max_tokens is not None else token_budget(schema)
        start = time.perf_counter()
        if prefix and self.dialect == "llamacpp":
            if any(m.images for m in messages):
                raise ConfigurationError("an image cannot go into a raw completion with a prefix")
            data = await self._http.post_json(
                "/completions",
                self._payload(
                    prompt=self.render(messages) + prefix,
                    temperature=temperature,
                    max_tokens=budget,
                    grammar=gbnf(schema),
                ),
            )
            choice = data["choices"][0]
            text = choice.get("text") or ""
        else:
            data = await self._http.post_json(
                "/chat/completions",
                self._payload(
                    temperature=temperature,
                    max_tokens=budget,
                    response_format=response_format(schema, self.dialect),
                    **self._continued(messages, prefix),
                ),
            )
            choice = data["choices"][0]
            text = choice["message"].get("content") or ""
        return validated(
            schema,
            Generation(
                text=text,
                usage=usage_of(data),
                latency_s=time.perf_counter() - start,
                finish_reason=choice.get("finish_reason"),
            ),
        )

    def _continued(self, messages: Sequence[Message], prefix: str) -> dict[str, Any]:
        """Chat fields whose assistant turn starts with ``prefix`` where the server allows it."""
        chat = self._chat(messages)
        if not prefix:
            return {"messages": chat}
        if self.dialect == "vllm":
            return {
                "messages": [*chat, {"role": "assistant", "content": prefix}],
                "continue_final_message": True,
                "add_generation_prompt": False,
            }
        if not self._warned_prefix:
            log.warning(
                "the %s dialect cannot start the model's turn; prefix left out", self.dialect
            )
            self._warned_prefix = True
        return {"messages": chat}

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
            usage=usage_of(data),
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
            usage=usage_of(data),
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

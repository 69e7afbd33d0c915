"""A deterministic test double: answers from a queue or a responder function.

For unit tests of logic only. Every structured answer is validated against the
requested schema exactly as a real backend's output would be, and every call is
recorded so tests can inspect the prompts the graph sent.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from docgemma.llm.schema import check_bounded, validated
from docgemma.llm.types import Generation, Message, StructuredGeneration, T, Usage

Reply = str | dict[str, Any] | BaseModel | Exception | Callable[..., Any]
"""A reply, or a function of the call's messages and schema that gives one (for a schema
built at the call, such as an answer whose quotes are the turn's source sentences)."""
Responder = Callable[[Sequence[Message], type[BaseModel] | None], Reply]


@dataclass
class RecordedCall:
    kind: str
    messages: list[Message]
    schema: type[BaseModel] | None
    temperature: float
    max_tokens: int | None
    prompt: str = ""
    prefix: str = ""
    """The words the call put at the start of the model's turn (the end of ``prompt``)."""


class ScriptedBackend:
    name = "scripted"
    supports_vision = False

    def __init__(
        self,
        replies: Sequence[Reply] = (),
        responder: Responder | None = None,
        model: str = "scripted",
        supports_vision: bool = False,
    ) -> None:
        self.model = model
        self.supports_vision = supports_vision
        self._queue: deque[Reply] = deque(replies)
        self._responder = responder
        self.calls: list[RecordedCall] = []
        self.prepared: list[type[BaseModel]] = []

    def queue(self, *replies: Reply) -> None:
        self._queue.extend(replies)

    def _next(self, messages: Sequence[Message], schema: type[BaseModel] | None) -> Reply:
        if self._queue:
            reply = self._queue.popleft()
        elif self._responder is not None:
            reply = self._responder(messages, schema)
        else:
            what = schema.__name__ if schema else "free text"
            raise AssertionError(f"scripted backend has no reply queued for a {what} call")
        if callable(reply) and not isinstance(reply, (BaseModel, type)):
            reply = reply(messages, schema)
        if isinstance(reply, Exception):
            raise reply
        return reply

    def prepare(self, schemas: Sequence[type[BaseModel]]) -> None:
        """Refuse unbounded strings as real backends do, so logic tests catch them too."""
        for schema in schemas:
            check_bounded(schema)
        self.prepared.extend(schemas)

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        prefix: str = "",
    ) -> StructuredGeneration[T]:
        prompt = self.render(messages) + prefix
        self.calls.append(
            RecordedCall(
                "structured", list(messages), schema, temperature, max_tokens, prompt, prefix
            )
        )
        start = time.perf_counter()
        reply = self._next(messages, schema)
        if isinstance(reply, BaseModel):
            raw = reply.model_dump_json()
        elif isinstance(reply, dict):
            raw = json.dumps(reply)
        else:
            raw = reply
        return validated(
            schema,
            Generation(
                text=raw,
                usage=Usage(
                    prompt_tokens=self.count_tokens(prompt),
                    completion_tokens=self.count_tokens(raw),
                ),
                latency_s=time.perf_counter() - start,
                finish_reason="stop",
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
        self.calls.append(
            RecordedCall(
                "generate", list(messages), None, temperature, max_tokens, self.render(messages)
            )
        )
        text = str(self._next(messages, None))
        return Generation(
            text=text, usage=Usage(completion_tokens=self.count_tokens(text)), finish_reason="stop"
        )

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        generation = await self.generate(
            messages, temperature=temperature, max_tokens=max_tokens, stop=stop
        )
        for word in generation.text.split(" "):
            yield word + " "

    def render(self, messages: Sequence[Message], *, add_generation_prompt: bool = True) -> str:
        body = "\n".join(f"<{m.role}>{m.content}</{m.role}>" for m in messages)
        return body + ("\n<assistant>" if add_generation_prompt else "")

    async def complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation:
        self.calls.append(RecordedCall("complete", [], None, temperature, max_tokens, prompt))
        text = str(self._next([Message(role="user", content=prompt)], None))
        for s in stop:
            if s in text:
                text = text[: text.index(s)]
        return Generation(
            text=text, usage=Usage(completion_tokens=self.count_tokens(text)), finish_reason="stop"
        )

    async def stream_complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        generation = await self.complete(
            prompt, temperature=temperature, max_tokens=max_tokens, stop=stop
        )
        yield generation.text

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    async def aclose(self) -> None:
        return None

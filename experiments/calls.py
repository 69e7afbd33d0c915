"""Model calls as experiment records: every call becomes a ``CallRecord``, never an exception.

A trial must survive what it measures (unparsable output, a timeout), so failures are
recorded as data. The ``Caller`` bounds concurrency with a semaphore for remote
backends and, when the backend offers ``structured_batch`` (in-process vLLM),
gathers concurrent constrained calls of the same shape into one batched engine call.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from docgemma.llm.base import LLMBackend
from docgemma.llm.errors import LLMError, SchemaNotSupported, StructuredOutputError
from docgemma.llm.schema import emitted_key_order, schema_key_order
from docgemma.llm.types import Generation, Message, StructuredGeneration

R = TypeVar("R")


@dataclass
class CallRecord:
    prompt: str
    response: str
    parsed: dict[str, Any] | None = None
    error: str | None = None
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    key_order: list[str] | None = None
    """Top-level keys in the order emitted; ``None`` for free-text calls."""
    schema_order: list[str] | None = None
    finish_reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


BatchKey = tuple[type[BaseModel], float, int | None]


class Caller:
    """The one door from a trial to the backend."""

    def __init__(
        self,
        backend: LLMBackend,
        *,
        concurrency: int = 1,
        token_cap: int | None = None,
        batch: bool = True,
        batch_window_s: float = 0.02,
        max_batch: int = 64,
    ) -> None:
        self.backend = backend
        self.token_cap = token_cap
        self._semaphore = asyncio.Semaphore(max(1, concurrency))
        self._batching = batch and callable(getattr(backend, "structured_batch", None))
        self._window = batch_window_s
        self._max_batch = max_batch
        self._pending: dict[BatchKey, list[tuple[Sequence[Message], asyncio.Future]]] = {}
        self._timers: dict[BatchKey, asyncio.TimerHandle] = {}
        self.batches: list[int] = []
        """Sizes of the batched engine calls made, for the manifest."""

    def cap(self, max_tokens: int) -> int:
        """A free-text budget under the run's token cap (smoke runs use a small cap)."""
        return min(max_tokens, self.token_cap) if self.token_cap else max_tokens

    def render(self, messages: Sequence[Message]) -> str:
        return self.backend.render(messages)

    # ── constrained ──
    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[BaseModel],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
    ) -> CallRecord:
        prompt = self.render(messages)
        start = time.perf_counter()
        try:
            if self._batching:
                outcome = await self._batched(messages, schema, temperature, max_tokens)
            else:
                async with self._semaphore:
                    start = time.perf_counter()
                    outcome = await self.backend.structured(
                        messages, schema, temperature=temperature, max_tokens=max_tokens
                    )
        except SchemaNotSupported:
            raise
        except (LLMError, TimeoutError, OSError) as exc:
            outcome = exc
        return _structured_record(prompt, schema, outcome, time.perf_counter() - start)

    async def _batched(
        self,
        messages: Sequence[Message],
        schema: type[BaseModel],
        temperature: float,
        max_tokens: int | None,
    ) -> StructuredGeneration | Exception:
        loop = asyncio.get_running_loop()
        key: BatchKey = (schema, temperature, max_tokens)
        future: asyncio.Future = loop.create_future()
        self._pending.setdefault(key, []).append((messages, future))
        if len(self._pending[key]) >= self._max_batch:
            self._flush(key)
        elif key not in self._timers:
            self._timers[key] = loop.call_later(self._window, self._flush, key)
        return await future

    def _flush(self, key: BatchKey) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        items = self._pending.pop(key, [])
        if items:
            asyncio.ensure_future(self._dispatch(key, items))

    async def _dispatch(
        self, key: BatchKey, items: list[tuple[Sequence[Message], asyncio.Future]]
    ) -> None:
        schema, temperature, max_tokens = key
        self.batches.append(len(items))
        try:
            async with self._semaphore:
                results = await asyncio.to_thread(
                    self.backend.structured_batch,
                    [m for m, _ in items],
                    schema,
                    temperature=temperature,
                    max_tokens=max_tokens,
                )
        except Exception as exc:  # handed to every waiting trial, which records it
            results = [exc] * len(items)
        for (_, future), result in zip(items, results, strict=True):
            if not future.done():
                future.set_result(result)

    # ── free text ──
    async def text(
        self,
        messages: Sequence[Message],
        *,
        temperature: float,
        max_tokens: int,
        stop: Sequence[str] = (),
    ) -> CallRecord:
        prompt = self.render(messages)
        return await self._free(
            prompt,
            self.backend.generate(
                messages, temperature=temperature, max_tokens=self.cap(max_tokens), stop=stop
            ),
        )

    async def complete(
        self, prompt: str, *, temperature: float, max_tokens: int, stop: Sequence[str] = ()
    ) -> CallRecord:
        return await self._free(
            prompt,
            self.backend.complete(
                prompt, temperature=temperature, max_tokens=self.cap(max_tokens), stop=stop
            ),
        )

    async def _free(self, prompt: str, call) -> CallRecord:
        start = time.perf_counter()
        try:
            async with self._semaphore:
                start = time.perf_counter()
                gen: Generation = await call
        except (LLMError, TimeoutError, OSError) as exc:
            return CallRecord(
                prompt=prompt,
                response="",
                error=f"{type(exc).__name__}: {exc}",
                latency_s=time.perf_counter() - start,
            )
        return CallRecord(
            prompt=prompt,
            response=gen.text,
            latency_s=time.perf_counter() - start,
            prompt_tokens=gen.usage.prompt_tokens,
            completion_tokens=gen.usage.completion_tokens,
            finish_reason=gen.finish_reason,
        )

    async def run_exclusive(self, coro: Awaitable[R]) -> tuple[R, float]:
        """Run a multi-call routine (budget forcing, a whole triage) as one unit under the
        concurrency bound; also return its time, counted once it holds the model (a
        trial waiting in the queue is not slower)."""
        async with self._semaphore:
            start = time.perf_counter()
            result = await coro
            return result, time.perf_counter() - start


def _structured_record(
    prompt: str, schema: type[BaseModel], outcome: Any, latency: float
) -> CallRecord:
    order = schema_key_order(schema)
    if isinstance(outcome, StructuredGeneration):
        return CallRecord(
            prompt=prompt,
            response=outcome.text,
            parsed=outcome.value.model_dump(mode="json"),
            latency_s=outcome.latency_s or latency,
            prompt_tokens=outcome.usage.prompt_tokens,
            completion_tokens=outcome.usage.completion_tokens,
            key_order=list(outcome.key_order),
            schema_order=order,
            finish_reason=outcome.finish_reason,
        )
    raw = getattr(outcome, "raw_text", "") if isinstance(outcome, StructuredOutputError) else ""
    return CallRecord(
        prompt=prompt,
        response=raw,
        error=f"{type(outcome).__name__}: {outcome}",
        latency_s=latency,
        key_order=emitted_key_order(raw) if raw else [],
        schema_order=order,
    )


def dumps(value: Any) -> str | None:
    """JSON text for a DataFrame cell (Parquet and CSV both keep it verbatim)."""
    return None if value is None else json.dumps(value, ensure_ascii=False)

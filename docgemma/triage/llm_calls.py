"""Model calls of the triage nodes: one repair attempt for structured output, one failure type.

``ModelDown`` is what every node catches to hand the turn to the fallback answer:
the backend unavailable (``ModelUnavailable``) or twice invalid output.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence

from docgemma.llm.base import LLMBackend
from docgemma.llm.errors import ModelUnavailable, StructuredOutputError
from docgemma.llm.schema import token_budget
from docgemma.llm.thinking import ThinkingConfig, stream_think_then_answer
from docgemma.llm.types import Message, StreamChunk, T

log = logging.getLogger(__name__)


class ModelDown(Exception):
    """The model cannot give a usable answer for this step; the turn falls back."""


async def structured(
    llm: LLMBackend, messages: Sequence[Message], schema: type[T], *, purpose: str
) -> T:
    """A constrained call at T=0 (a decision, not prose), repaired once on invalid output."""
    for attempt in (1, 2):
        try:
            gen = await llm.structured(
                messages, schema, temperature=0.0, max_tokens=token_budget(schema)
            )
            return gen.value
        except ModelUnavailable as exc:
            log.warning("triage %s: model unavailable: %s", purpose, exc)
            raise ModelDown(purpose) from exc
        except StructuredOutputError as exc:
            log.warning("triage %s: invalid output (attempt %d): %s", purpose, attempt, exc)
    raise ModelDown(purpose)


async def thinking_stream(
    llm: LLMBackend, messages: Sequence[Message], config: ThinkingConfig
) -> AsyncIterator[StreamChunk]:
    try:
        async for chunk in stream_think_then_answer(llm, messages, config):
            yield chunk
    except ModelUnavailable as exc:
        log.warning("triage reasoning: model unavailable: %s", exc)
        raise ModelDown("generate") from exc


async def text_stream(
    llm: LLMBackend, messages: Sequence[Message], *, temperature: float, max_tokens: int
) -> AsyncIterator[str]:
    try:
        async for piece in llm.stream(messages, temperature=temperature, max_tokens=max_tokens):
            yield piece
    except ModelUnavailable as exc:
        log.warning("triage response: model unavailable: %s", exc)
        raise ModelDown("router_respond") from exc


def as_messages(system: str, user: str) -> list[Message]:
    return [Message(role="system", content=system), Message(role="user", content=user)]


def history_text(messages: Sequence[dict[str, str]], keep: int = 4) -> str:
    """The last few visible turns for a prompt (the reasoning is never part of them)."""
    recent = list(messages)[-keep:]
    if not recent:
        return ""
    lines = [f"{'Patient' if m['role'] == 'user' else 'Assistant'}: {m['content']}" for m in recent]
    return "Earlier conversation:\n" + "\n".join(lines) + "\n\n"

"""Model calls of the triage nodes: decisions at temperature 0, the streamed reasoning and
reply, and the conversation as prompt text.

Every failure is ``llm.repair.ModelFailure`` (the backend unavailable, or invalid output
twice), which each node catches to hand the turn to the fallback answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from docgemma.llm.base import LLMBackend
from docgemma.llm.errors import ModelUnavailable
from docgemma.llm.repair import structured_repaired, unavailable
from docgemma.llm.schema import token_budget
from docgemma.llm.thinking import ThinkingConfig, stream_think_then_answer
from docgemma.llm.types import Message, StreamChunk, T


async def structured(
    llm: LLMBackend, messages: Sequence[Message], schema: type[T], *, purpose: str
) -> T:
    """A constrained call at T=0 (a decision, not prose), repaired once on invalid output."""
    gen, _ = await structured_repaired(
        llm, messages, schema, purpose=purpose, temperature=0.0, max_tokens=token_budget(schema)
    )
    return gen.value


async def thinking_stream(
    llm: LLMBackend, messages: Sequence[Message], config: ThinkingConfig
) -> AsyncIterator[StreamChunk]:
    try:
        async for chunk in stream_think_then_answer(llm, messages, config):
            yield chunk
    except ModelUnavailable as exc:
        raise unavailable("generate", exc, ["generate"]) from exc


async def text_stream(
    llm: LLMBackend, messages: Sequence[Message], *, temperature: float, max_tokens: int
) -> AsyncIterator[str]:
    try:
        async for piece in llm.stream(messages, temperature=temperature, max_tokens=max_tokens):
            yield piece
    except ModelUnavailable as exc:
        raise unavailable("router_respond", exc, ["router_respond"]) from exc


def as_messages(system: str, user: str) -> list[Message]:
    return [Message(role="system", content=system), Message(role="user", content=user)]


def history_text(messages: Sequence[dict[str, str]], keep: int = 4) -> str:
    """The last few visible turns for a prompt (the reasoning is never part of them)."""
    recent = list(messages)[-keep:]
    if not recent:
        return ""
    lines = [f"{'Patient' if m['role'] == 'user' else 'Assistant'}: {m['content']}" for m in recent]
    return "Earlier conversation:\n" + "\n".join(lines) + "\n\n"

"""Model calls made by the nodes: generation settings per node, usage events, reasoning.

A structured call is repaired once (``llm.repair``); a second failure, or the backend
being unavailable, raises ``ModelFailure`` carrying the calls made so far so the node can
record them and hand the turn to the fallback path.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from docgemma.agent.answer.hygiene import clean_reasoning, reasoning_in
from docgemma.agent.deps import AgentDeps
from docgemma.agent.generation import NodeCall, generation_for
from docgemma.events import LLMUsage, ThinkingToken, emit
from docgemma.labels import NODE_LABELS
from docgemma.llm.errors import ModelUnavailable
from docgemma.llm.repair import structured_repaired, unavailable
from docgemma.llm.schema import token_budget
from docgemma.llm.thinking import ThinkingConfig, stream_think_then_answer, stream_thinking
from docgemma.llm.types import Message, T


async def structured(
    deps: AgentDeps,
    node: str,
    purpose: NodeCall,
    messages: Sequence[Message],
    schema: type[T],
    *,
    prefix: str = "",
) -> tuple[T, list[str]]:
    """A constrained call; ``max_tokens`` is never below the schema's worst case, so JSON closes.

    ``prefix`` opens the model's turn (the backend puts it before the constrained object).
    """
    cfg = generation_for(purpose, deps.settings)
    gen, calls = await structured_repaired(
        deps.llm,
        messages,
        schema,
        purpose=purpose,
        temperature=cfg.temperature,
        max_tokens=max(cfg.max_tokens, token_budget(schema)),
        prefix=prefix,
    )
    emit(
        LLMUsage(
            node=node,
            label=NODE_LABELS.get(node, ""),
            purpose=purpose,
            prompt_tokens=gen.usage.prompt_tokens,
            completion_tokens=gen.usage.completion_tokens,
            latency_s=round(gen.latency_s, 4),
            key_order=gen.key_order,
        )
    )
    return gen.value, calls


_RETOKENIZE_SLACK = 2


class _Thoughts:
    """Reasoning shown as ``ThinkingToken`` events, released at whitespace so that a tool
    name or turn token is never split across pieces, and cleaned before it is shown."""

    def __init__(self, deps: AgentDeps, node: str) -> None:
        self.node, self.label = node, NODE_LABELS.get(node, "")
        self.labels = deps.registry.labels()
        self.held = ""

    def feed(self, text: str, *, final: bool = False) -> None:
        self.held += text
        cut = len(self.held) if final else max(self.held.rfind(" "), self.held.rfind("\n")) + 1
        shown, self.held = self.held[:cut], self.held[cut:]
        if shown.strip():
            emit(
                ThinkingToken(
                    node=self.node, label=self.label, text=clean_reasoning(shown, self.labels)
                )
            )


@dataclass
class StreamedText:
    text: str
    """The model's raw answer (reasoning excluded); ``hygiene.clean`` makes it presentable."""
    calls: list[str]
    thinking_tokens: int | None = None
    """Tokens spent thinking; None when thinking was off."""
    hit_limit: bool = False
    """The answer ran to the token limit, so its last sentence may be unfinished."""


async def think(
    deps: AgentDeps, node: str, messages: Sequence[Message], thinking: ThinkingConfig
) -> tuple[str, int]:
    """The model reasons under the budget before a constrained answer; the reasoning streams
    as ``ThinkingToken`` events and is returned with its token count (not a separate
    model call: it is part of the answer's)."""
    shown = _Thoughts(deps, node)
    try:
        async for chunk in stream_thinking(deps.llm, messages, thinking):
            if "thought" in chunk.data:
                shown.feed("", final=True)
                return chunk.data["thought"]["thinking"], chunk.data["thought"]["tokens"]
            shown.feed(chunk.text)
    except ModelUnavailable as exc:
        raise unavailable("thinking", exc, []) from exc
    return "", 0


async def free_text(
    deps: AgentDeps,
    node: str,
    purpose: NodeCall,
    messages: Sequence[Message],
    *,
    thinking: ThinkingConfig | None = None,
) -> StreamedText:
    """A free-text call (an answer from the model's memory), whole: it is checked before
    anything of it is shown. With ``thinking`` the reasoning streams as ``ThinkingToken``
    events first; one model call either way."""
    label = NODE_LABELS.get(node, "")
    cfg = generation_for(purpose, deps.settings)
    start = time.perf_counter()
    thinking_tokens: int | None = None
    try:
        if thinking is None:
            gen = await deps.llm.generate(
                messages, temperature=cfg.temperature, max_tokens=cfg.max_tokens
            )
            text = gen.text
            # a reasoning model's own spans go to the thinking channel, as thinking would
            _Thoughts(deps, node).feed(reasoning_in(text), final=True)
        else:
            shown = _Thoughts(deps, node)
            pieces: list[str] = []
            async for chunk in stream_think_then_answer(deps.llm, messages, thinking):
                if "result" in chunk.data:
                    thinking_tokens = chunk.data["result"]["thinking_tokens"]
                elif chunk.channel == "thinking":
                    shown.feed(chunk.text)
                else:
                    pieces.append(chunk.text)
            shown.feed("", final=True)
            text = "".join(pieces)
    except ModelUnavailable as exc:
        raise unavailable(purpose, exc, [purpose]) from exc
    answer_tokens = deps.llm.count_tokens(text)
    emit(
        LLMUsage(
            node=node,
            label=label,
            purpose=purpose,
            prompt_tokens=deps.llm.count_tokens(deps.llm.render(messages)),
            completion_tokens=answer_tokens + (thinking_tokens or 0),
            latency_s=round(time.perf_counter() - start, 4),
        )
    )
    return StreamedText(
        text=text,
        calls=[purpose],
        thinking_tokens=thinking_tokens,
        hit_limit=thinking is None and answer_tokens >= cfg.max_tokens - _RETOKENIZE_SLACK,
    )

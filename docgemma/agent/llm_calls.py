"""Model calls made by the nodes: generation settings, one repair attempt, usage events.

A structured call that fails validation is repeated once; a second failure, or the
backend being unavailable, raises ``ModelFailure`` carrying the calls made so far so
the node can record them and hand the turn to the fallback path.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from docgemma.agent.deps import AgentDeps
from docgemma.agent.events import LLMUsage
from docgemma.agent.generation import NodeCall, generation_for
from docgemma.agent.tracing import NODE_LABELS, emit
from docgemma.llm.errors import ModelUnavailable, StructuredOutputError
from docgemma.llm.schema import token_budget
from docgemma.llm.types import Message, T

log = logging.getLogger(__name__)


class ModelFailure(Exception):
    """The model could not give a usable answer for this step."""

    def __init__(self, reason: str, calls: list[str]) -> None:
        super().__init__(reason)
        self.calls = calls


async def structured(
    deps: AgentDeps, node: str, purpose: NodeCall, messages: Sequence[Message], schema: type[T]
) -> tuple[T, list[str]]:
    """A constrained call; ``max_tokens`` is never below the schema's worst case, so JSON closes."""
    cfg = generation_for(purpose, deps.settings)
    max_tokens = max(cfg.max_tokens, token_budget(schema))
    calls: list[str] = []
    for attempt in (1, 2):
        calls.append(purpose)
        try:
            gen = await deps.llm.structured(
                messages, schema, temperature=cfg.temperature, max_tokens=max_tokens
            )
        except ModelUnavailable as exc:
            raise ModelFailure(f"model unavailable: {exc}", calls) from exc
        except StructuredOutputError as exc:
            log.warning("%s: invalid structured output (attempt %d): %s", purpose, attempt, exc)
            if attempt == 2:
                raise ModelFailure("the model twice produced invalid output", calls) from exc
            continue
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
    raise AssertionError("unreachable")


async def text(
    deps: AgentDeps, node: str, purpose: NodeCall, messages: Sequence[Message]
) -> tuple[str, list[str]]:
    """A free-text call (synthesis)."""
    cfg = generation_for(purpose, deps.settings)
    try:
        gen = await deps.llm.generate(
            messages, temperature=cfg.temperature, max_tokens=cfg.max_tokens
        )
    except ModelUnavailable as exc:
        raise ModelFailure(f"model unavailable: {exc}", [purpose]) from exc
    emit(
        LLMUsage(
            node=node,
            label=NODE_LABELS.get(node, ""),
            purpose=purpose,
            prompt_tokens=gen.usage.prompt_tokens,
            completion_tokens=gen.usage.completion_tokens,
            latency_s=round(gen.latency_s, 4),
        )
    )
    return gen.text, [purpose]

"""Model calls made by the nodes: generation settings, one repair attempt, usage events.

A structured call that fails validation is repeated once; a second failure, or the
backend being unavailable, raises ``ModelFailure`` carrying the calls made so far so
the node can record them and hand the turn to the fallback path.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from docgemma.agent.deps import AgentDeps
from docgemma.agent.events import AnswerToken, LLMUsage, ThinkingToken
from docgemma.agent.generation import NodeCall, generation_for
from docgemma.agent.stream_filter import StreamFilter
from docgemma.agent.tracing import NODE_LABELS, emit
from docgemma.llm.errors import ModelUnavailable, StructuredOutputError
from docgemma.llm.schema import token_budget
from docgemma.llm.thinking import ThinkingConfig, stream_think_then_answer
from docgemma.llm.types import Message, T

log = logging.getLogger(__name__)


UNAVAILABLE = "the model service is unavailable"
"""The failure's public reason; the backend's own message (URLs, bodies) is only logged."""


class ModelFailure(Exception):
    """The model could not give a usable answer for this step."""

    def __init__(self, reason: str, calls: list[str]) -> None:
        super().__init__(reason)
        self.calls = calls


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
    max_tokens = max(cfg.max_tokens, token_budget(schema))
    calls: list[str] = []
    for attempt in (1, 2):
        calls.append(purpose)
        try:
            gen = await deps.llm.structured(
                messages, schema, temperature=cfg.temperature, max_tokens=max_tokens, prefix=prefix
            )
        except ModelUnavailable as exc:
            log.warning("%s: model unavailable: %s", purpose, exc)
            raise ModelFailure(UNAVAILABLE, calls) from exc
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


_RETOKENIZE_SLACK = 2


@dataclass
class StreamedText:
    text: str
    """The model's raw answer (reasoning excluded); ``clean_answer`` makes it final."""
    calls: list[str]
    thinking_tokens: int | None = None
    """Tokens spent thinking; None when thinking was off."""
    hit_limit: bool = False
    """The answer ran to the token limit, so its last sentence or list item is unfinished."""


async def streamed_text(
    deps: AgentDeps,
    node: str,
    purpose: NodeCall,
    messages: Sequence[Message],
    *,
    instructions: str = "",
    thinking: ThinkingConfig | None = None,
    temperature: float | None = None,
) -> StreamedText:
    """A free-text call (synthesis) streamed as filtered ``AnswerToken`` events.

    With ``thinking`` the model first reasons under the budget; that text goes out as
    ``ThinkingToken`` events only, as does any reasoning span the model writes unasked.
    Either way this counts as one model call. ``temperature`` replaces the node's own
    (a retry samples differently).
    """
    label = NODE_LABELS.get(node, "")
    labels = deps.registry.labels()
    visible = StreamFilter(labels, instructions)
    thoughts = StreamFilter(labels, instructions, hide_spans=False)
    cfg = generation_for(purpose, deps.settings)
    start = time.perf_counter()
    raw: list[str] = []
    thinking_tokens: int | None = None
    try:
        if thinking is None:
            async for piece in deps.llm.stream(
                messages,
                temperature=cfg.temperature if temperature is None else temperature,
                max_tokens=cfg.max_tokens,
            ):
                raw.append(piece)
                shown = visible.feed(piece)  # a span closing in this piece precedes its answer
                _show(ThinkingToken, node, label, visible.take_reasoning())
                _show(AnswerToken, node, label, shown)
        else:
            async for chunk in stream_think_then_answer(deps.llm, messages, thinking):
                if "result" in chunk.data:
                    thinking_tokens = chunk.data["result"]["thinking_tokens"]
                elif chunk.channel == "thinking":
                    _show(ThinkingToken, node, label, thoughts.feed(chunk.text))
                else:
                    _show(ThinkingToken, node, label, thoughts.flush())
                    raw.append(chunk.text)
                    _show(AnswerToken, node, label, visible.feed(chunk.text))
    except ModelUnavailable as exc:
        log.warning("%s: model unavailable: %s", purpose, exc)
        raise ModelFailure(UNAVAILABLE, [purpose]) from exc
    _show(ThinkingToken, node, label, thoughts.flush())
    _show(AnswerToken, node, label, visible.flush())
    _show(ThinkingToken, node, label, visible.take_reasoning())
    text = "".join(raw)
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
        # counted again from the text, which may merge a token or two of what was generated
        hit_limit=thinking is None and answer_tokens >= cfg.max_tokens - _RETOKENIZE_SLACK,
    )


def _show(event: type[AnswerToken | ThinkingToken], node: str, label: str, text: str) -> None:
    if text:
        emit(event(node=node, label=label, text=text))

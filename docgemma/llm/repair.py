"""A constrained model call, repaired once, and the one failure every graph node catches.

Both graphs (the clinician agent and the triage mode) ask the model for decisions under a
schema. Output that fails validation is asked for once more (a sampled or truncated object
often validates on the second try); a second failure, or the backend being unavailable,
raises ``ModelFailure``, which carries the calls made so far so that a node can record
them and hand the turn to its pre-written fallback.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from docgemma.llm.base import LLMBackend
from docgemma.llm.errors import ModelUnavailable, StructuredOutputError
from docgemma.llm.types import Message, StructuredGeneration, T

log = logging.getLogger(__name__)

UNAVAILABLE = "the model service is unavailable"
"""The failure's public reason; the backend's own message (URLs, bodies) is only logged."""
INVALID_TWICE = "the model twice produced invalid output"


class ModelFailure(Exception):
    """The model could not give a usable answer for this step."""

    def __init__(self, reason: str, calls: Sequence[str] = ()) -> None:
        super().__init__(reason)
        self.calls = list(calls)


def unavailable(purpose: str, exc: ModelUnavailable, calls: Sequence[str]) -> ModelFailure:
    """The failure for a backend that could not answer, its own message logged only."""
    log.warning("%s: model unavailable: %s", purpose, exc)
    return ModelFailure(UNAVAILABLE, calls)


async def structured_repaired(
    llm: LLMBackend,
    messages: Sequence[Message],
    schema: type[T],
    *,
    purpose: str,
    temperature: float,
    max_tokens: int,
    prefix: str = "",
) -> tuple[StructuredGeneration[T], list[str]]:
    """The validated generation and the calls it took (``purpose`` once per attempt)."""
    calls: list[str] = []
    for attempt in (1, 2):
        calls.append(purpose)
        try:
            gen = await llm.structured(
                messages, schema, temperature=temperature, max_tokens=max_tokens, prefix=prefix
            )
        except ModelUnavailable as exc:
            raise unavailable(purpose, exc, calls) from exc
        except StructuredOutputError as exc:
            log.warning("%s: invalid structured output (attempt %d): %s", purpose, attempt, exc)
            if attempt == 2:
                raise ModelFailure(INVALID_TWICE, calls) from exc
            continue
        return gen, calls
    raise AssertionError("unreachable")

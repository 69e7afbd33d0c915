"""The one protocol every LLM backend implements.

Three ways to call a model: structured generation (a Pydantic class in, a validated
instance out), free text (whole or streamed), and raw completion of a prompt string
with stop sequences (budget forcing steers generation token budget by token budget,
so it needs the prompt string itself, not chat messages).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel

from docgemma.llm.types import Generation, Message, StructuredGeneration, T


@runtime_checkable
class LLMBackend(Protocol):
    name: str
    """Registry name of the backend (``llamacpp``, ``openai``, ...)."""
    model: str
    """What the backend runs: a file name, a served model id."""
    supports_vision: bool

    def prepare(self, schemas: Sequence[type[BaseModel]]) -> None:
        """Compile the response schemas up front so an unsupported one fails at start-up."""

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        prefix: str = "",
    ) -> StructuredGeneration[T]:
        """Generate an object valid against ``schema``; ``max_tokens`` defaults to its bound.

        ``prefix`` opens the model's own turn (tool selection's analytical prefix): the model
        continues after those words, so the schema constrains only what follows them,
        and the returned text is the object alone. It is never part of a user message.
        """

    async def generate(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation: ...

    def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        """Yield text pieces as the model produces them."""

    def render(self, messages: Sequence[Message], *, add_generation_prompt: bool = True) -> str:
        """The prompt string these messages become in the model's own turn format."""

    async def complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation:
        """Continue a raw prompt string (no chat template applied)."""

    def stream_complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]: ...

    def count_tokens(self, text: str) -> int: ...

    async def aclose(self) -> None: ...

"""Value types shared by every backend: messages in, generations out."""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from docgemma.llm.control_tokens import neutralise

Role = Literal["system", "user", "assistant"]
T = TypeVar("T", bound=BaseModel)


class ImageInput(BaseModel):
    """An image attached to a message; only vision-capable backends accept it."""

    model_config = ConfigDict(frozen=True)

    data: bytes
    mime_type: str = "image/png"


class Message(BaseModel):
    """One chat turn. Backends render these into their own prompt format."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str
    images: tuple[ImageInput, ...] = ()

    @field_validator("content")
    @classmethod
    def _no_control_tokens(cls, content: str) -> str:
        """Content is text, never turn markers: every backend's prompt is built from here."""
        return neutralise(content)


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Generation(BaseModel):
    """Free text from one model call, with what it cost."""

    text: str
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    finish_reason: str | None = None


class StructuredGeneration(Generation, Generic[T]):
    """A schema-validated object plus the raw text it was parsed from.

    ``key_order`` is the order in which the model emitted the top-level keys: the
    field-ordering experiment needs what was emitted, not what the schema asked for.
    """

    value: T
    key_order: list[str] = Field(default_factory=list)


class StreamChunk(BaseModel):
    """One piece of a token stream; ``channel`` separates thinking from the visible answer."""

    text: str
    channel: Literal["answer", "thinking"] = "answer"
    data: dict[str, Any] = Field(default_factory=dict)


def messages(*pairs: tuple[Role, str]) -> list[Message]:
    """Build a message list from ``(role, content)`` pairs."""
    return [Message(role=role, content=content) for role, content in pairs]

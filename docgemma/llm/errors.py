"""Typed errors of the LLM layer, so callers can branch on kind rather than on text.

``LLMError`` and ``ConfigurationError`` are defined in ``docgemma.errors`` (the model-file
locator in ``docgemma.assets`` raises the latter too) and re-exported here."""

from __future__ import annotations

from docgemma.errors import ConfigurationError, LLMError

__all__ = [
    "ConfigurationError",
    "LLMError",
    "ModelUnavailable",
    "SchemaNotSupported",
    "StructuredOutputError",
]


class ModelUnavailable(LLMError):
    """The model backend cannot answer now (server down, overloaded, timed out after retries).

    The agent graph catches this and ends the turn with its pre-written fallback message.
    """


class SchemaNotSupported(LLMError):
    """A response schema cannot be compiled to a grammar; raised when the backend prepares it."""


class StructuredOutputError(LLMError):
    """The model's output did not validate against the requested schema."""

    def __init__(self, message: str, raw_text: str = "") -> None:
        super().__init__(message)
        self.raw_text = raw_text

"""Typed errors of the LLM layer, so callers can branch on kind rather than on text."""

from __future__ import annotations


class LLMError(Exception):
    """Base class for every error raised by the LLM layer."""


class ConfigurationError(LLMError):
    """The configuration names something that cannot work (unknown backend, missing file)."""


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

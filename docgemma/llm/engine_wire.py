"""What the app and its engine process say to each other: one JSON object a line.

A request is one line on a fresh Unix-socket connection; the engine answers with zero or
more ``{"piece": ...}`` lines (streamed text) and then exactly one final line, either
``{"done": <Generation>}`` or ``{"error": {"kind": ..., "message": ...}}``. A connection
that ends without a final line means the engine died.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from docgemma.llm.errors import LLMError, ModelUnavailable, SchemaNotSupported

LINE_LIMIT = 64 * 1024 * 1024
"""Longest line either side reads: a prompt fills the whole context window at most."""

_ERRORS: dict[str, type[LLMError]] = {
    "unavailable": ModelUnavailable,
    "schema": SchemaNotSupported,
}


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"


async def read(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None when the other side closed the connection."""
    line = await reader.readline()
    if not line:
        return None
    return json.loads(line)


def error_message(exc: BaseException) -> dict[str, Any]:
    kind = "schema" if isinstance(exc, SchemaNotSupported) else "unavailable"
    return {"error": {"kind": kind, "message": f"{type(exc).__name__}: {exc}"}}


def raise_error(payload: dict[str, Any]) -> None:
    """Raise the typed error an engine's error line stands for."""
    raise _ERRORS.get(payload.get("kind", ""), ModelUnavailable)(payload.get("message", ""))

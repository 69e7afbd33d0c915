"""A conversation as the clinician saw it, and its exports (Markdown, JSON).

Only what was said: the clinician's messages and the assistant's answers with their
numbered sources; never hidden reasoning or the trace. The API's history and export
and the app's download share this shape.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

MAX_MESSAGE_CHARS = 20_000
"""The longest message accepted from the page or the API; longer ones are refused."""


class TranscriptMessage(BaseModel):
    """What the clinician or the assistant said; never the assistant's hidden reasoning."""

    role: Literal["user", "assistant"]
    content: str
    created_at: float | None = None
    """Seconds since the epoch; None where the app did not record the time."""
    sources: list[dict[str, Any]] = Field(default_factory=list)
    confidence: str | None = None
    confidence_reason: str = ""
    """Why code set that confidence (a source failed, nothing was cited), as the page shows it."""
    notices: list[str] = Field(default_factory=list)
    """What the assistant told the clinician beside its answer (a message cut short, a
    proposal discarded); shown before the answer."""


TranscriptReader = Callable[[str], Awaitable[list[TranscriptMessage]]]
"""``read(thread_id)``: a conversation's messages from the conversation store, oldest first."""


def _when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime(" · %Y-%m-%d %H:%M UTC") if ts else ""


def to_markdown(title: str, messages: list[TranscriptMessage]) -> str:
    lines = [f"# {title or 'DocGemma conversation'}", ""]
    for m in messages:
        who = "Clinician" if m.role == "user" else "DocGemma"
        lines += [f"**{who}**{_when(m.created_at)}", ""]
        lines += [f"> Note: {' '.join(n.split())}" for n in m.notices]
        lines += [""] if m.notices else []
        lines += [m.content.strip(), ""]
        if m.sources:
            lines.append("Sources:")
            for n, s in enumerate(m.sources, 1):
                title_ = s.get("title") or "Untitled source"
                lines.append(f"{n}. [{title_}]({s['url']})" if s.get("url") else f"{n}. {title_}")
            lines.append("")
    lines.append("_Decision support only: verify against the sources and clinical judgement._")
    return "\n".join(lines) + "\n"


def to_json(meta: dict[str, Any], messages: list[TranscriptMessage]) -> str:
    body = {**meta, "messages": [m.model_dump(mode="json") for m in messages]}
    return json.dumps(body, ensure_ascii=False, indent=2)

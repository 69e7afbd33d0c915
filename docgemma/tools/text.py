"""Text clean-up shared by the tools: arguments arrive with stray whitespace, and results
must fit a small model's context window."""

from __future__ import annotations

import re


def squash(text: str | None) -> str:
    """Collapse runs of whitespace to single spaces; a missing text is empty."""
    return " ".join((text or "").split())


def shorten(text: str, limit: int) -> str:
    """Collapse whitespace and cut at the last sentence (or word) that fits ``limit``,
    the closing " …" included."""
    text = squash(text)
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - 2)]
    end = cut.rfind(". ")
    if end >= limit // 2:
        return cut[: end + 1] + " …"
    return cut.rsplit(" ", 1)[0] + " …"


def whole_words(text: str, limit: int) -> str:
    """``text`` as written when shorter than ``limit``; at the limit (a schema's length cap
    cut it), only its whole words, with " …"."""
    text = squash(text)
    if len(text) < limit or " " not in text:
        return text
    return text.rsplit(" ", 1)[0] + " …"


def names(text: str, term: str) -> bool:
    """``term`` appears in ``text`` as a whole word or phrase, in any case."""
    return re.search(rf"\b{re.escape(term)}\b", text, re.IGNORECASE) is not None

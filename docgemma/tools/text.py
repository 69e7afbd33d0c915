"""Text shortening shared by the tools: results must fit a small model's context window."""

from __future__ import annotations


def shorten(text: str, limit: int) -> str:
    """Collapse whitespace and cut at the last sentence (or word) that fits ``limit``."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = cut.rfind(". ")
    if end >= limit // 2:
        return cut[: end + 1] + " …"
    return cut.rsplit(" ", 1)[0] + " …"

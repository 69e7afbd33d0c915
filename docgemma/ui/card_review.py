"""The approval card's account of the chart check: what was read, and what was found.

Every text comes from the record or a reference (drug names, reactions, quotes), so each
is shown as plain text; only the markers and the layout are the app's own.
"""

from __future__ import annotations

from docgemma.tools.write_review import Finding, WriteReview
from docgemma.ui.untrusted import plain

MARKS = {"warning": "⚠️ **Warning**", "caution": "⚠ Caution", "info": "ℹ️"}
NOT_GIVEN = "*not given — the record will not hold it; add it with Edit if it should*"
"""A field of the record the proposal leaves empty: visible as missing, never left out."""


def _finding(f: Finding) -> str:
    line = f"- {MARKS[f.severity]}: {plain(f.title)}"
    if f.detail:
        line += f" — {plain(f.detail)}"
    if f.source:
        line += f" *({plain(f.source)})*"
    return line


def review_markdown(review: WriteReview | None, *, edited: bool = False) -> str:
    """The check's paragraph for the card; empty for a write that has no check. After an
    edit it says which proposal was checked: the edited one is checked again when it is
    approved, and the timeline shows that check."""
    if review is None:
        return ""
    which = " (of the proposal as first made)" if edited else ""
    lines = [f"**Chart check{which}.** {plain(review.checked)}"]
    lines += [_finding(f) for f in review.ordered()] or ["- Nothing to flag."]
    return "\n".join(lines)

"""A request held back for drug names no dictionary knows, and the clinician's reply to it.

When a request names a drug nobody knows ("simvastatn"), nothing is checked and the
clinician is offered the nearest known names. The request waits in the thread's state;
the next message confirms it ("yes", "yes, simvastatin", or just the right name), and the
request runs again with the confirmed names, or it is anything else and the request is
dropped. Pure functions; the nodes keep the state.
"""

from __future__ import annotations

import re
from typing import Any

from docgemma.agent.drug_names import is_known

_YES = (
    r"(?:yes|yeah|yep|yup|y|correct|right|sure|ok|okay|k|please\s+do|go\s+ahead|do\s+it"
    r"|that'?s\s+(?:right|it|correct)|that\s+is\s+(?:right|correct)|exactly|confirmed?)"
)
_AFFIRMATION = re.compile(rf"^\s*{_YES}(?:[\s,.!]+(?:please|thanks|thank\s+you))?[\s.!]*$", re.I)
_LEAD = re.compile(rf"^\s*(?:{_YES}|no|nope|sorry|i\s+meant|meant|i\s+mean)\b[\s,.:;!-]*", re.I)
_LIST = re.compile(r"\s*(?:,|\band\b|&|\+)\s*", re.I)


MAX_NAME_WORDS = 3


def _a_name(text: str) -> bool:
    """A drug name and nothing else ("simvastatin", "simvastatin 40"), not a new question."""
    return len(text.split()) <= MAX_NAME_WORDS and is_known(text)


def unconfirmed(query: str, unknown: dict[str, list[str]]) -> dict[str, Any]:
    """What the state keeps while the clinician is asked: the request and the names offered."""
    return {"query": query, "names": {typed: list(options) for typed, options in unknown.items()}}


def confirmed_query(message: str, pending: dict[str, Any] | None) -> str | None:
    """The held-back request with the names the reply confirms, or None when the reply
    confirms nothing (the request is then dropped)."""
    if not pending:
        return None
    names: dict[str, list[str]] = pending.get("names") or {}
    if not names:
        return None
    if _AFFIRMATION.match(message):
        if not all(names.values()):
            return None  # a name with nothing offered needs the clinician's spelling
        chosen = [options[0] for options in names.values()]
    else:
        rest = _LEAD.sub("", message).strip(" .!?")
        while (shorter := _LEAD.sub("", rest).strip(" .!?")) != rest:
            rest = shorter  # "yes, I meant simvastatin"
        chosen = [p for p in _LIST.split(rest) if p]
        if len(chosen) != len(names) or not all(_a_name(p) for p in chosen):
            return None
    query = str(pending.get("query") or "")
    for typed, meant in zip(names, chosen, strict=True):
        query = re.sub(rf"(?<![\w-]){re.escape(typed)}(?![\w-])", meant, query, flags=re.I)
    return query

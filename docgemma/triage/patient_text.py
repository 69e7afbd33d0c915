"""Code that shapes what the patient reads: internals removed, the action stated, a question last.

The model writes the reply; these rules make sure it never shows scores or the
machinery behind it, always carries the severity's action (and red-flag advice first),
and ends with a question that keeps the conversation going.
"""

from __future__ import annotations

import re

from docgemma.severity import Severity
from docgemma.triage.red_flags import FiredRule

FALLBACK_MESSAGE = (
    "Sorry, I can't assess your symptoms right now because the assistant is unavailable. "
    "If you are worried, call NHS 111 or contact your GP. In an emergency call 999."
)
DEFAULT_QUESTION = "Can you tell me a little more about your symptoms and when they started?"
_INTERNALS = re.compile(
    r"\bscores?\b|similarit|retriev|knowledge base|page id|\bpages?\b|\bmodel\b|\bthe analysis\b"
    r"|\bassessment\b|\bsources?\b|\bdatabase\b|\b0\.\d+|<\|?\w*\|?>|inconclusive"
    # the prompt's own scaffolding, which small models echo back
    r"|key facts|condition information|urgency:|latest message|earlier conversation"
    r"|patient details|no single condition",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_SPECIAL = re.compile(r"<\|[^|>]*\|>|<unused\d+>|</?think>|<end_of_turn>|<start_of_turn>\w*")


def clean_reply(text: str) -> str:
    """The model's reply without sentences that mention scores, pages, models or tags."""
    text = _SPECIAL.sub(" ", text)
    sentences = [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s.strip()]
    kept = [s for s in sentences if not _INTERNALS.search(s)]
    return " ".join(kept)


def urgent_advice(fired: list[FiredRule]) -> list[str]:
    """The advice of the fired A&E rules, each once, at most two: what opens the answer."""
    return list(dict.fromkeys(f.advice for f in fired if f.severity is Severity.A_AND_E))[:2]


def compose(reply: str, severity: Severity | None, fired: list[FiredRule]) -> str:
    """Red-flag advice, the cleaned reply, the action if missing, and one question last."""
    parts: list[str] = urgent_advice(fired)
    sentences = _SENTENCE.split(clean_reply(reply)) if reply.strip() else []
    question = sentences.pop() if sentences and sentences[-1].endswith("?") else DEFAULT_QUESTION
    body = " ".join(s for s in sentences if s)
    if body:
        parts.append(body)
    if severity is not None and severity.action.lower() not in body.lower():
        parts.append(severity.action)
    return " ".join([*dict.fromkeys(parts), question])


def fallback_text(severity: Severity | None, fired: list[FiredRule]) -> str:
    """The answer when the model is unavailable: the rules' advice, then the fallback message."""
    parts = [f.advice for f in fired]
    if severity is not None and not fired:
        parts.append(severity.action)
    parts.append(FALLBACK_MESSAGE)
    return " ".join(dict.fromkeys(parts))

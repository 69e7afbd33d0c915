"""Which parts of an answer the model wrote and which code wrote.

The synthesize node knows: it records how it wrote the answer (the ``answer`` decision's
reason: "stated by code", "by code", "pre-written fallback" for answers written wholly by
code), composes an answer from the sources when the model's drafts fail the check (an
``AnswerRejected`` with action ``sources``), appends the key facts of lookups the model left
out below ``UNMENTIONED_HEADER`` (``coverage.with_unmentioned``), adds must-know notes as
``Note:`` paragraphs (``answer.with_notes``) and labels knowledge answers (``UNVERIFIED_NOTE``
or the grounded note). Everything else is model text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from docgemma.agent.answer import UNVERIFIED_NOTE
from docgemma.agent.coverage import UNMENTIONED_HEADER
from docgemma.agent.events import AnswerRejected, Decision

WHOLLY_BY_CODE = ("by code", "pre-written fallback")
"""Words of the ``answer`` decision's reason when code wrote the whole answer."""
GROUNDED_PREFIX = "*Based on an offline source:"


@dataclass(frozen=True)
class Part:
    origin: str
    """``model`` or ``code``."""
    text: str


def written_by_code(events: Iterable[object]) -> bool:
    """The turn's answer came from code as a whole (no model text in it)."""
    for event in events:
        if isinstance(event, AnswerRejected) and event.action == "sources":
            return True
        if (
            isinstance(event, Decision)
            and event.node == "synthesize"
            and event.decision == "answer"
            and any(words in event.reason for words in WHOLLY_BY_CODE)
        ):
            return True
    return False


def _code_paragraph(paragraph: str) -> bool:
    text = paragraph.strip()
    return (
        text.startswith("Note: ")
        or text.startswith(UNVERIFIED_NOTE[:24])
        or text.startswith(GROUNDED_PREFIX)
    )


def answer_parts(answer: str, by_code: bool = False) -> list[Part]:
    """The answer cut into consecutive model and code parts (in order)."""
    if by_code:
        return [Part("code", answer)] if answer else []
    head, header, tail = answer.partition(UNMENTIONED_HEADER)
    parts: list[Part] = []
    for paragraph in head.split("\n\n"):
        if paragraph.strip():
            parts.append(Part("code" if _code_paragraph(paragraph) else "model", paragraph))
    if header:
        parts.append(Part("code", header + tail))
    return parts


def model_text(parts: Iterable[Part]) -> str:
    return "\n\n".join(p.text for p in parts if p.origin == "model")


def code_text(parts: Iterable[Part]) -> str:
    return "\n\n".join(p.text for p in parts if p.origin == "code")

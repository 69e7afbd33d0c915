"""Which parts of an answer the model wrote and which code wrote.

The synthesize node knows: it records how it wrote the answer (the ``answer`` decision's
reason says "by code" or "pre-written fallback" for answers written wholly by code, the
decline among them), adds must-know notes as ``Note:`` paragraphs (``compose.with_notes``)
and labels an answer from the model's memory (``UNVERIFIED_NOTE``); a turn that ends before
synthesis (a question back, a refusal, an approval card) is code's, and so is the
can't-miss block an answer opens with. Everything else is the model's verified statements.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from docgemma.agent.answer.compose import UNVERIFIED_NOTE
from docgemma.agent.cant_miss_opening import HEADING as CANT_MISS_HEADING
from docgemma.events import Decision

WHOLLY_BY_CODE = ("by code", "pre-written fallback")
"""Words of the ``answer`` decision's reason when code wrote the whole answer."""


@dataclass(frozen=True)
class Part:
    origin: str
    """``model`` or ``code``."""
    text: str


def written_by_code(events: Iterable[object]) -> bool:
    """The turn's answer came from code as a whole (no model text in it): the synthesis
    says so, or the turn ended before any synthesis (a question back, a refusal, a reply to
    small talk, an approval card)."""
    answers = [
        event
        for event in events
        if isinstance(event, Decision) and event.node == "synthesize" and event.decision == "answer"
    ]
    return not answers or any(
        words in event.reason for event in answers for words in WHOLLY_BY_CODE
    )


def _code_paragraph(paragraph: str) -> bool:
    text = paragraph.strip()
    return text.startswith(("Note: ", UNVERIFIED_NOTE[:24], CANT_MISS_HEADING))


def answer_parts(answer: str, by_code: bool = False) -> list[Part]:
    """The answer cut into consecutive model and code parts (in order)."""
    if by_code:
        return [Part("code", answer)] if answer else []
    return [
        Part("code" if _code_paragraph(paragraph) else "model", paragraph)
        for paragraph in answer.split("\n\n")
        if paragraph.strip()
    ]


def model_text(parts: Iterable[Part]) -> str:
    return "\n\n".join(p.text for p in parts if p.origin == "model")


def code_text(parts: Iterable[Part]) -> str:
    return "\n\n".join(p.text for p in parts if p.origin == "code")

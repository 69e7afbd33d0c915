"""What a statement may quote: the sentences of the sources as the prompt shows them.

Only what a tool marked citable is offered (``ToolOutcome.passages``: a label's sections,
an abstract, a graded interaction); its headings and its notes on provenance or on what
failed are context for the model, not findings. Quoted, such a note became the answer
("the graded interactions come from the offline reference alone").

A small model asked to copy words "exactly" from a source often copies its own statement
instead, so its quote is in no source and a correct statement is dropped. The quote is
therefore not written but chosen: the answer's schema is built for the turn, and its
``quote`` field admits only the sentences of the shown sources (a long sentence cut at
its clauses). The model chooses the sentence first and then writes the statement from
it (measured on the condition pages, this order gave more and fuller answers than the
statement first); the sources a statement rests on are the ones that hold that sentence.

A choice can miss while the statement is sound (the model chooses the opening sentence
of the right passage and writes a fact from further on). ``attributed`` then looks among
the offered sentences that share most of the statement's words for one that passes the
same check, so a statement is kept when some sentence of the sources holds it.

Grammar strings are printable ASCII (``llm.grammar``), so each choice is the sentence
spelled in ASCII; code maps the choice back to the sentence as its source has it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from docgemma.agent.answer.sources import CITATION, Passage, shown
from docgemma.agent.answer.statements import (
    MAX_SOURCES,
    MAX_STATEMENTS,
    MIN_QUOTE_WORDS,
    QUOTE_CHARS,
    STATEMENT_CHARS,
    Checked,
    CitedAnswer,
    Statement,
    check,
    normalise,
    word_share,
)

MAX_QUOTES = 120
"""Choices offered at most, in source order, so the grammar stays small."""
ALTERNATIVES = 5
"""Sentences tried when the one the model points at does not hold its statement."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|\s*\n+\s*")
_CLAUSE_END = re.compile(r"(?<=[,:;])\s+")
_BULLET = re.compile(r"^(?:[-*•]\s+|\d{1,2}[.)]\s+)")
_ASCII = str.maketrans(
    {
        "≥": ">=",
        "≤": "<=",
        "×": "x",
        "µ": "u",
        "μ": "u",
        "°": " degrees ",
        "’": "'",
        "‘": "'",
        "“": "'",
        "”": "'",
        '"': "'",
        "\\": "/",
        "…": "...",
        **{c: "-" for c in "‐‑‒–—―−"},
    }
)


@dataclass(frozen=True)
class Quotable:
    choice: str
    """How the grammar lets the model write it."""
    text: str
    """The words as the source has them."""
    sources: tuple[int, ...]


def ascii_form(text: str) -> str:
    """``text`` in printable ASCII: symbols spelled out, accents dropped, the rest left out."""
    text = unicodedata.normalize("NFKD", text.translate(_ASCII))
    text = "".join(c for c in text if " " <= c <= "~")
    return " ".join(text.split())


def _pieces(sentence: str) -> list[str]:
    """A sentence, or its clauses joined up to ``QUOTE_CHARS`` when it is longer."""
    if len(sentence) <= QUOTE_CHARS:
        return [sentence]
    out: list[str] = []
    for clause in _CLAUSE_END.split(sentence):
        while len(clause) > QUOTE_CHARS:  # no clause break: cut at a word
            cut = clause[:QUOTE_CHARS].rsplit(" ", 1)[0] or clause[:QUOTE_CHARS]
            out.append(cut)
            clause = clause[len(cut) :].strip()
        if out and len(out[-1]) + 1 + len(clause) <= QUOTE_CHARS:
            out[-1] = f"{out[-1]} {clause}"
        elif clause:
            out.append(clause)
    return out


def sentences(text: str) -> list[str]:
    """The text's sentences and list items, each at most ``QUOTE_CHARS`` long."""
    text = CITATION.sub("", text).replace(" …", "")
    out: list[str] = []
    for part in _SENTENCE_END.split(text):
        part = _BULLET.sub("", part.strip()).strip()
        out += [p for p in _pieces(part) if p]
    return out


def _offered(passage: Passage) -> list[str]:
    """The pieces of a source that its tool marked citable and the prompt shows."""
    if passage.citable is None:
        return sentences(shown(passage))
    seen = f" {normalise(shown(passage))} "
    marked = (p for text in passage.citable for p in sentences(text))
    return [p for p in marked if f" {normalise(p)} " in seen]


def quotables(passages: Sequence[Passage]) -> list[Quotable]:
    """Every piece of the shown sources that a statement may quote, once, with the
    sources that hold it: only what a tool marked citable, and never a result's heading,
    repeated in each of its sources."""
    found: dict[str, tuple[str, list[int]]] = {}
    for passage in passages:
        shared = set(sentences(passage.heading))
        for piece in _offered(passage):
            if piece in shared:
                continue
            choice = ascii_form(piece)
            if len(choice.split()) < MIN_QUOTE_WORDS:  # a lone word or heading shows no fact
                continue
            if choice in found:
                if passage.n not in found[choice][1]:
                    found[choice][1].append(passage.n)
            elif len(found) < MAX_QUOTES:
                found[choice] = (piece, [passage.n])
    return [Quotable(c, text, tuple(ns)) for c, (text, ns) in found.items()]


def answer_schema(choices: Sequence[Quotable]) -> type[BaseModel]:
    """The turn's ``CitedAnswer`` schema: each statement's quote, one of ``choices``, then
    the statement itself, written from it."""
    if not choices:
        raise ValueError("an answer schema needs at least one sentence to quote")
    quote: Any = Literal[tuple(c.choice for c in choices)]
    said = create_model(
        "Statement",
        quote=(quote, Field(description="The source sentence that shows the fact")),
        text=(
            str,
            Field(max_length=STATEMENT_CHARS, description="The fact, in plain clinical English"),
        ),
    )
    return create_model(
        "CitedAnswer",
        statements=(list[said], Field(max_length=MAX_STATEMENTS)),  # type: ignore[valid-type]
    )


def resolved(answer: BaseModel, choices: Sequence[Quotable]) -> CitedAnswer:
    """The model's answer with each quote as its source has it and the sources holding it."""
    by_choice = {c.choice: c for c in choices}
    return CitedAnswer(
        statements=[
            _quoting(said.text, by_choice[said.quote])
            for said in answer.statements  # type: ignore[attr-defined]
        ]
    )


def _quoting(text: str, quoted: Quotable) -> Statement:
    return Statement(sources=list(quoted.sources[:MAX_SOURCES]), quote=quoted.text, text=text)


def attributed(
    statement: Statement,
    choices: Sequence[Quotable],
    passages: Sequence[Passage],
    question: str,
) -> Checked:
    """``statement`` held to the sentence it points at, or else to the first of the
    ``ALTERNATIVES`` offered sentences sharing most of its words that holds it."""
    first = check(statement, passages, question)
    if first.ok:
        return first
    ranked = sorted(choices, key=lambda c: word_share(statement.text, c.text), reverse=True)
    for other in ranked[:ALTERNATIVES]:
        if other.text == statement.quote:
            continue
        checked = check(_quoting(statement.text, other), passages, question)
        if checked.ok:
            return checked
    return first

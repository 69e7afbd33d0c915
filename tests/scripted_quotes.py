"""Cited answers for scripted models: a statement names its quote by a few of its words and
gets the whole source sentence the answer's schema offers, as the grammar would force."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from docgemma.agent.answer.statements import normalise


def offered(schema: type[BaseModel]) -> list[str]:
    """The sentences the turn's answer schema lets a statement quote."""
    item = schema.model_fields["statements"].annotation.__args__[0]  # type: ignore[union-attr]
    return list(item.model_fields["quote"].annotation.__args__)


def choice(schema: type[BaseModel], words: str) -> str:
    """The offered sentence that is ``words``, else the one holding them; fails the test
    when none or several do."""
    found = [c for c in offered(schema) if normalise(words) == normalise(c)] or [
        c for c in offered(schema) if f" {normalise(words)} " in f" {normalise(c)} "
    ]
    assert len(found) == 1, f"{len(found)} offered sentences hold {words!r}: {offered(schema)}"
    return found[0]


def statements(schema: type[BaseModel], said: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """A cited answer of (words of the quote, statement) pairs."""
    return {"statements": [{"quote": choice(schema, q), "text": t} for q, t in said]}


def answering(*said: tuple[str, str]) -> Callable[..., dict[str, Any]]:
    """A scripted reply: the cited answer of ``said`` under the schema the call offers."""
    return lambda _messages, schema: statements(schema, said)

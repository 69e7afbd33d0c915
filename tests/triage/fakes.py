"""A small in-memory knowledge base and a scripted model for the triage graph's logic tests."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pydantic import BaseModel

from docgemma.llm.errors import ModelUnavailable
from docgemma.llm.scripted import ScriptedBackend
from docgemma.llm.types import Message
from docgemma.triage.knowledge import LiteratureHit
from docgemma.triage.schemas import RouteDecision


class PageSeverity(Enum):
    SELF_CARE = "self_care"
    URGENT_PRIMARY_CARE = "urgent_primary_care"
    A_AND_E = "a_and_e"


@dataclass
class Page:
    page_id: str
    title: str
    category: str
    severity: PageSeverity
    content: str
    score: float = 0.0
    subcategory: str = ""
    source: str = "demo corpus"


PAGES = {
    "flu": Page(
        "flu",
        "Flu",
        "infections",
        PageSeverity.SELF_CARE,
        "Flu brings a sudden fever, aching body, tiredness and a dry cough. "
        "Rest, keep warm and drink fluids. See a GP if symptoms last more than a week.",
    ),
    "heart-attack": Page(
        "heart-attack",
        "Heart attack",
        "heart",
        PageSeverity.A_AND_E,
        "Chest pain that feels heavy or tight, spreading to the arm or jaw, with "
        "breathlessness or sweating. Call 999 straight away.",
    ),
    "migraine": Page(
        "migraine",
        "Migraine",
        "brain",
        PageSeverity.SELF_CARE,
        "A throbbing headache on one side, often with feeling sick and light sensitivity.",
    ),
}


@dataclass
class FakeAttempt:
    query: str


@dataclass
class FakeRetrieval:
    hits: list[Page]
    attempts: list[FakeAttempt]
    found: bool


@dataclass
class FakeKB:
    """Keyword search over three pages; records every query it was given."""

    pages: dict[str, Page] = field(default_factory=lambda: dict(PAGES))
    queries: list[str] = field(default_factory=list)
    earlier: list[list[str]] = field(default_factory=list)
    """The earlier messages each retrieval was given."""
    fail: Exception | None = None

    async def retrieve(
        self, query: str, *, llm: Any, role: Any = None, k: int = 5, earlier: Any = ()
    ):
        self.queries.append(query)
        self.earlier.append(list(earlier))
        if self.fail is not None:
            raise self.fail
        hits = self.search(query, role=role, k=k)
        return FakeRetrieval(hits, [FakeAttempt(query)], found=bool(hits))

    def search(self, query: str, *, role: Any = None, k: int = 5) -> list[Page]:
        words = set(re.findall(r"[a-z]+", query.lower()))
        hits = []
        for page in self.pages.values():
            overlap = len(words & set(re.findall(r"[a-z]+", page.content.lower())))
            if overlap:
                hits.append(Page(**{**page.__dict__, "score": min(1.0, overlap / 4)}))
        hits.sort(key=lambda p: -p.score)
        return hits[:k]


def fake_literature(query: str, k: int) -> list[LiteratureHit]:
    return [LiteratureHit("Outcomes of a rare rash", "An abstract about rashes.", 0.41, "PubMedQA")]


def triage_backend(
    *,
    route: dict | Exception | None = None,
    prediction: dict | Exception | None = None,
    reply: str
    | Exception = "I'm sorry you feel unwell. This sounds like flu. Rest and drink fluids.",
    thinking: str = "The symptoms match the flu page: fever and dry cough.",
) -> ScriptedBackend:
    """A scripted model answering each triage call by its kind."""
    route = route if route is not None else {"action": "retrieve", "search_query": "fever cough"}
    prediction = (
        prediction if prediction is not None else {"condition": "flu", "severity": "Self-care"}
    )

    def respond(messages: Sequence[Message], schema: type[BaseModel] | None):
        if schema is RouteDecision:
            return route
        if schema is not None:
            return prediction
        if messages and messages[0].role == "system" and "talking" in messages[0].content:
            return reply
        return thinking

    return ScriptedBackend(responder=respond)


__all__ = ["FakeKB", "ModelUnavailable", "fake_literature", "triage_backend"]

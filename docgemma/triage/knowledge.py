"""What the triage graph needs from the knowledge base and the literature index.

Written as Protocols so the graph depends on behaviour, not on one store: the
``docgemma.kb`` knowledge base wrapped in ``docgemma.kb.assisted.AssistedSearch`` satisfies
``KnowledgeSearch``; the offline PubMedQA index satisfies ``LiteratureSearch`` through
``offline_literature``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from docgemma.llm.base import LLMBackend


class PageHit(Protocol):
    page_id: str
    title: str
    category: str
    severity: Any
    """The page's own NHS-style severity (an enum whose ``name`` matches ``Severity``)."""
    score: float
    content: str
    source: str


class AttemptLike(Protocol):
    query: str


class RetrievalLike(Protocol):
    """``docgemma.kb.Retrieval``: the hits, one record per search attempt, and whether any
    page passed the knowledge base's relevance threshold."""

    hits: Sequence[PageHit]
    attempts: Sequence[AttemptLike]
    found: bool


class KnowledgeSearch(Protocol):
    def search(self, query: str, *, role: Any = None, k: int = 5) -> Sequence[PageHit]:
        """Plain similarity search: no model call, deterministic (blocking)."""

    async def retrieve(
        self,
        query: str,
        *,
        llm: LLMBackend,
        role: Any = None,
        k: int = 5,
        earlier: Sequence[str] = (),
    ) -> RetrievalLike:
        """Search with topic classification and query rewriting; returns a ``RetrievalLike``.
        ``earlier``: the person's earlier messages in the conversation, oldest first."""


@dataclass(frozen=True)
class LiteratureHit:
    title: str
    text: str
    score: float
    source: str


class LiteratureSearch(Protocol):
    def __call__(self, query: str, k: int) -> list[LiteratureHit]: ...


def offline_literature(settings: Any) -> LiteratureSearch:
    """The ``search_medical_literature`` tool's offline index, as the triage fallback search."""
    from docgemma.tools.literature import MIN_SIMILARITY
    from docgemma.tools.literature_index import PROVENANCE, get_index

    def search(query: str, k: int) -> list[LiteratureHit]:
        index = get_index(settings.data_dir, settings.literature_index_size)
        return [
            LiteratureHit(title=h.title, text=h.text, score=h.similarity, source=PROVENANCE)
            for h in index.search(query, k)
            if h.similarity >= MIN_SIMILARITY
        ]

    return search

"""The knowledge base: condition-page sections in Chroma, searched by embedding similarity.

Sections are the indexed units; a search groups them back into their parent pages and
ranks each page by its best section and the query words it contains. The collection
records a hash of the corpus (and of the embedder and chunking), so a changed corpus, a
missing store or an emptied collection is rebuilt on open; otherwise the stored vectors
are reused.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from docgemma.config import Settings
from docgemma.embed.base import Embedder
from docgemma.kb.corpus import DEMO_PAGES_DIR, Page, corpus_hash, load_corpus, page_files
from docgemma.kb.lexical import LEXICAL_WEIGHT, WordIndex
from docgemma.kb.models import (
    DEMO_SOURCE_PREFIX,
    USER_SOURCE_PREFIX,
    KBHit,
    SectionScore,
)
from docgemma.kb.topics import Role, categories_for

log = logging.getLogger(__name__)

COLLECTION = "kb_sections"
CHUNKING = "sections-v1"
"""Bump when the way sections become embedded text changes: it forces a rebuild."""
HELP_SECTION = "When to get help"
SYMPTOMS_SECTION = "Symptoms"
OTHER_SECTION_WEIGHT = 0.85
"""Similarity of a non-symptom section counts at this weight. People describe what they
feel, so a page's symptoms should match first; advice and causes still find their page.
On the lay-language evaluation set this lifts the top-1 rate from 64% (all sections
equal) to about 75% by similarity alone (``python -m docgemma.kb eval``; figures in
docs/architecture.md)."""
_SECTIONS_PER_PAGE = 8
RANKED_PAGES = 20
"""Pages (by their sections) taken from the vector index to rank with their words: shingles
came ninth by similarity alone for the question that led to ``docgemma.kb.lexical``."""


def chroma_client(settings: Settings) -> Any:
    """A Chroma server client when ``chroma_url`` is set, else a persistent local store.
    Chroma is imported here, not with the module: the app's page loads without it."""
    import chromadb

    from docgemma.embed.chroma import persistent_client

    if settings.chroma_url:
        url = urlparse(settings.chroma_url)
        if not url.hostname:
            raise ValueError(f"DOCGEMMA_CHROMA_URL is not a URL: {settings.chroma_url!r}")
        https = url.scheme == "https"
        return chromadb.HttpClient(
            host=url.hostname, port=url.port or (443 if https else 8000), ssl=https
        )
    return persistent_client(settings.data_dir / "chroma")


def corpus_dir(settings: Settings) -> Path:
    """The configured folder, else pages ingested into the data folder, else the demo corpus."""
    if settings.kb_corpus_dir is not None:
        return settings.kb_corpus_dir
    ingested = ingested_dir(settings)
    if ingested.is_dir() and page_files(ingested):
        return ingested
    return DEMO_PAGES_DIR


def ingested_dir(settings: Settings) -> Path:
    return settings.data_dir / "kb" / "pages"


def section_text(page: Page, heading: str, text: str) -> str:
    """What is embedded for one section: the page title and heading give the text its topic."""
    return f"{page.title}. {heading}: {text}"


def section_id(page_id: str, n: int) -> str:
    """A section's id in the collection: its page and its place on the page."""
    return f"{page_id}#{n}"


def parse_section_id(found: str) -> tuple[str, int]:
    page_id, _, n = found.rpartition("#")
    return page_id, int(n)


class KnowledgeBase:
    """Condition pages from ``pages_dir``, indexed by section in a Chroma collection."""

    def __init__(
        self,
        client: Any,
        pages_dir: Path = DEMO_PAGES_DIR,
        *,
        embedder: Embedder | None = None,
        collection: str = COLLECTION,
    ) -> None:
        self.client = client
        self.pages_dir = Path(pages_dir)
        self.demo = self.pages_dir.resolve() == DEMO_PAGES_DIR.resolve()
        self.collection_name = collection
        self._embedder = embedder
        self._pages: dict[str, Page] | None = None
        self._words: WordIndex | None = None
        self._sections = 0
        self._categories: frozenset[str] = frozenset()
        self._collection: Any = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> KnowledgeBase:
        return cls(chroma_client(settings), corpus_dir(settings), **kwargs)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from docgemma.embed import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    @property
    def pages(self) -> dict[str, Page]:
        self.collection()
        assert self._pages is not None
        return self._pages

    def source_name(self, page: Page) -> str:
        prefix = DEMO_SOURCE_PREFIX if self.demo else USER_SOURCE_PREFIX
        return f"{prefix}: {page.title}"

    def collection(self) -> Any:
        """Open the collection, (re)building it when it is missing, empty or stale (blocking)."""
        with self._lock:
            if self._collection is None:
                pages = load_corpus(self.pages_dir)
                self._collection = self._open(pages)
                self._pages = {p.page_id: p for p in pages}
                self._words = WordIndex(pages)
                self._sections = sum(len(p.sections) for p in pages)
                self._categories = frozenset(p.category for p in pages)
        return self._collection

    def _open(self, pages: list[Page]) -> Any:
        from chromadb.errors import NotFoundError

        from docgemma.embed.chroma import ChromaEmbeddingFunction

        wanted = corpus_hash(pages, salt=f"{self.embedder.name}|{CHUNKING}")
        chunks = sum(len(p.sections) for p in pages)
        try:
            existing = self.client.get_collection(
                self.collection_name, embedding_function=ChromaEmbeddingFunction(self.embedder)
            )
        except (NotFoundError, ValueError):  # ValueError in older chromadb releases
            existing = None
        if existing is not None:
            meta = existing.metadata or {}
            if meta.get("corpus_hash") == wanted and existing.count() == chunks:
                return existing
            reason = "changed" if existing.count() else "empty"
            log.info("knowledge-base index is %s; rebuilding", reason)
            self.client.delete_collection(self.collection_name)
        collection = self.client.create_collection(
            self.collection_name,
            embedding_function=ChromaEmbeddingFunction(self.embedder),
            metadata={"hnsw:space": "cosine", "corpus_hash": wanted, "pages": len(pages)},
        )
        self._index(collection, pages)
        return collection

    def _index(self, collection: Any, pages: list[Page]) -> None:
        log.info("indexing %d knowledge-base pages from %s", len(pages), self.pages_dir)
        ids, texts, documents, metadatas = [], [], [], []
        for page in pages:
            for n, section in enumerate(page.sections):
                ids.append(section_id(page.page_id, n))
                texts.append(section_text(page, section.heading, section.text))
                documents.append(section.text)
                metadatas.append(
                    {
                        "page_id": page.page_id,
                        "heading": section.heading,
                        "category": page.category,
                        "subcategory": page.subcategory,
                        "severity": page.severity.value,
                    }
                )
        vectors = self.embedder.embed(texts)
        collection.add(
            ids=ids,
            embeddings=[v.tolist() for v in vectors],
            documents=documents,
            metadatas=metadatas,
        )

    def search(
        self,
        query: str,
        *,
        role: Role | None = None,
        k: int = 5,
        category: str | None = None,
        subcategory: str | None = None,
    ) -> list[KBHit]:
        """Up to ``k`` pages, most relevant first, within the role's categories (and topic).

        Deterministic: the same query on the same corpus gives the same pages and scores.
        """
        query = " ".join(query.split())
        collection = self.collection()
        allowed = categories_for(role)
        if category is not None:
            allowed = [c for c in allowed if c == category]
        if not query or not allowed or k <= 0:
            return []
        clauses: list[dict[str, Any]] = []
        if not self._categories <= set(allowed):  # a filter that excludes nothing costs 2 ms
            clauses.append(
                {"category": allowed[0]} if len(allowed) == 1 else {"category": {"$in": allowed}}
            )
        if subcategory is not None:
            clauses.append({"subcategory": subcategory})
        where = {"$and": clauses} if len(clauses) > 1 else clauses[0] if clauses else None
        vector = self.embedder.embed([query])[0]
        assert self._pages is not None and self._words is not None
        # Ids, not metadata: each section's page and heading are known from its id, and
        # fetching 160 metadata records took 5 of the 7 ms a query cost.
        result = collection.query(
            query_embeddings=[vector.tolist()],
            n_results=min(self._sections, max(k, RANKED_PAGES) * _SECTIONS_PER_PAGE),
            where=where,
            include=["distances"],
        )
        best: dict[str, list[SectionScore]] = {}
        for found, distance in zip(result["ids"][0], result["distances"][0], strict=True):
            page_id, n = parse_section_id(found)
            heading = self._pages[page_id].sections[n].heading
            similarity = min(1.0, max(0.0, 1.0 - float(distance)))
            weight = 1.0 if heading == SYMPTOMS_SECTION else OTHER_SECTION_WEIGHT
            best.setdefault(page_id, []).append(
                SectionScore(heading=heading, score=round(similarity * weight, 4))
            )
        ranked = []
        for pid, scores in best.items():
            scores.sort(key=lambda s: -s.score)
            relevance = round(
                scores[0].score + LEXICAL_WEIGHT * self._words.coverage(query, pid), 4
            )
            ranked.append((-relevance, pid, scores))
        ranked.sort(key=lambda item: item[:2])
        return [self._hit(self._pages[pid], scores, -neg) for neg, pid, scores in ranked[:k]]

    def _hit(self, page: Page, scores: list[SectionScore], relevance: float) -> KBHit:
        top = page.section(scores[0].heading)
        parts = [top] if top else []
        help_section = page.section(HELP_SECTION)
        if help_section is not None and help_section is not top:
            parts.append(help_section)
        return KBHit(
            page_id=page.page_id,
            title=page.title,
            category=page.category,
            subcategory=page.subcategory,
            severity=page.severity,
            score=scores[0].score,
            relevance=relevance,
            content="\n\n".join(f"{s.heading}: {s.text}" for s in parts),
            source=self.source_name(page),
            sections=scores,
        )


_bases: dict[tuple[str, str, str], KnowledgeBase] = {}
_bases_lock = threading.Lock()


def get_knowledge_base(settings: Settings) -> KnowledgeBase:
    """One knowledge base per store and corpus, so the collection is opened once per process."""
    where = settings.chroma_url or str(settings.data_dir.resolve())
    key = (where, str(corpus_dir(settings).resolve()), COLLECTION)
    with _bases_lock:
        if key not in _bases:
            _bases[key] = KnowledgeBase.from_settings(settings)
        return _bases[key]


def prepare_knowledge_base(settings: Settings) -> int:
    """Build (or open) the index ahead of the first search, e.g. at start-up; returns pages."""
    return len(get_knowledge_base(settings).pages)

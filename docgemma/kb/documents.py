"""Per-tenant knowledge bases: each tenant's uploaded documents in a Chroma collection of its own.

A tenant's collection is named from a hash of the tenant (never from the tenant's text),
and every read and write goes through that tenant's ``TenantDocuments``, so one tenant's
search can only ever open its own collection. Document ids are random and issued here;
the client's title is kept as a label only. Passages are embedded with the same offline
MiniLM model as the condition pages.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from docgemma.embed.base import Embedder
from docgemma.kb.document_text import (
    DocumentError,
    DocumentKind,
    clean_title,
    document_text,
    passages,
)

COLLECTION_PREFIX = "tenant_docs_"


class DocumentInfo(BaseModel):
    id: str
    title: str
    kind: DocumentKind
    passages: int
    chars: int
    # whole milliseconds: the store may not give back a float's last digits
    added_at: float


def _to_millis(seconds: float) -> float:
    return round(seconds, 3)


class DocumentPassage(BaseModel):
    """One retrieved passage of a tenant's document."""

    document_id: str
    title: str
    heading: str
    text: str
    score: float = Field(ge=0.0, le=1.0, description="Cosine similarity to the query")

    @property
    def label(self) -> str:
        return f"{self.title} — {self.heading}" if self.heading else self.title


def collection_name(tenant: str) -> str:
    return COLLECTION_PREFIX + hashlib.sha256(tenant.encode("utf-8")).hexdigest()[:32]


class TenantDocuments:
    """One tenant's documents. Blocking calls (embedding, Chroma): run them in a thread."""

    def __init__(
        self, client: Any, tenant: str, embedder: Embedder, *, max_documents: int = 100
    ) -> None:
        self.client = client
        self.name = collection_name(tenant)
        self.embedder = embedder
        self.max_documents = max_documents
        self._lock = threading.Lock()

    def _collection(self) -> Any:
        from docgemma.embed.chroma import ChromaEmbeddingFunction

        return self.client.get_or_create_collection(
            self.name,
            embedding_function=ChromaEmbeddingFunction(self.embedder),
            metadata={"hnsw:space": "cosine"},
        )

    def _rows(self) -> list[dict[str, Any]]:
        return list(self._collection().get(include=["metadatas"])["metadatas"] or [])

    def documents(self) -> list[DocumentInfo]:
        """The tenant's documents, oldest first."""
        found: dict[str, DocumentInfo] = {}
        for meta in self._rows():
            doc = found.get(meta["document_id"])
            if doc is None:
                found[meta["document_id"]] = DocumentInfo(
                    id=meta["document_id"],
                    title=meta["title"],
                    kind=DocumentKind(meta["kind"]),
                    passages=1,
                    chars=int(meta["chars"]),
                    added_at=_to_millis(float(meta["added_at"])),
                )
            else:
                doc.passages += 1
        return sorted(found.values(), key=lambda d: (d.added_at, d.id))

    def add(self, title: str, kind: DocumentKind, data: bytes) -> DocumentInfo:
        """Index one upload; ``DocumentError`` says why one cannot be."""
        label = clean_title(title)
        text = document_text(data, kind)
        cut = passages(text, kind)
        with self._lock:
            if len(self.documents()) >= self.max_documents:
                raise DocumentError(
                    f"This tenant already has {self.max_documents} documents, the most "
                    "allowed; delete one first."
                )
            info = DocumentInfo(
                id=secrets.token_urlsafe(12),
                title=label,
                kind=kind,
                passages=len(cut),
                chars=len(text),
                added_at=_to_millis(time.time()),
            )
            # the title and heading give a passage its topic, as a condition page's do
            vectors = self.embedder.embed(
                [
                    f"{label}. {p.heading}: {p.text}" if p.heading else f"{label}. {p.text}"
                    for p in cut
                ]
            )
            self._collection().add(
                ids=[f"{info.id}#{n}" for n in range(len(cut))],
                embeddings=[v.tolist() for v in vectors],
                documents=[p.text for p in cut],
                metadatas=[
                    {
                        "document_id": info.id,
                        "title": label,
                        "heading": p.heading,
                        "kind": kind.value,
                        "chars": info.chars,
                        "added_at": info.added_at,
                    }
                    for p in cut
                ],
            )
        return info

    def delete(self, document_id: str) -> bool:
        with self._lock:
            collection = self._collection()
            found = collection.get(where={"document_id": document_id}, include=[])["ids"]
            if found:
                collection.delete(ids=found)
        return bool(found)

    def search(self, query: str, k: int = 3) -> list[DocumentPassage]:
        """The ``k`` passages most similar to ``query``, best first (none when empty)."""
        query = " ".join(query.split())
        collection = self._collection()
        count = collection.count()
        if not query or not count or k <= 0:
            return []
        result = collection.query(
            query_embeddings=[self.embedder.embed([query])[0].tolist()],
            n_results=min(k, count),
            include=["documents", "metadatas", "distances"],
        )
        return [
            DocumentPassage(
                document_id=meta["document_id"],
                title=meta["title"],
                heading=meta["heading"],
                text=text,
                score=round(min(1.0, max(0.0, 1.0 - float(distance))), 4),
            )
            for text, meta, distance in zip(
                result["documents"][0], result["metadatas"][0], result["distances"][0], strict=True
            )
        ]


class DocumentLibrary:
    """Every tenant's documents on one Chroma client; ``for_tenant`` opens one tenant's."""

    def __init__(
        self,
        client: Callable[[], Any],
        *,
        embedder: Embedder | None = None,
        max_documents: int = 100,
    ) -> None:
        self._open_client = client
        self._client: Any = None
        self._embedder = embedder
        self.max_documents = max_documents
        self._tenants: dict[str, TenantDocuments] = {}
        self._lock = threading.Lock()

    def for_tenant(self, tenant: str) -> TenantDocuments:
        with self._lock:
            if tenant not in self._tenants:
                if self._embedder is None:
                    from docgemma.embed import get_embedder

                    self._embedder = get_embedder()
                if self._client is None:
                    self._client = self._open_client()
                self._tenants[tenant] = TenantDocuments(
                    self._client, tenant, self._embedder, max_documents=self.max_documents
                )
            return self._tenants[tenant]


__all__ = ["DocumentError", "DocumentInfo", "DocumentLibrary", "DocumentPassage", "TenantDocuments"]

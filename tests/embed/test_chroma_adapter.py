"""The Chroma adapter in a real persistent Chroma collection, with no model download."""

from __future__ import annotations

from pathlib import Path

import chromadb
import pytest

from docgemma.embed.chroma import CHROMA_NAME, ChromaEmbeddingFunction, persistent_client

DOCS = {
    "asthma": "Asthma is a long-term condition of the airways causing wheeze and breathlessness.",
    "warfarin": "Warfarin combined with aspirin raises the risk of serious bleeding.",
    "gout": "Gout causes sudden severe pain and swelling in a joint, often the big toe.",
}


def _fill(client: chromadb.ClientAPI) -> chromadb.Collection:
    collection = client.get_or_create_collection(
        "conditions",
        embedding_function=ChromaEmbeddingFunction(),
        metadata={"hnsw:space": "cosine"},  # as every collection of the project is made
    )
    collection.add(ids=list(DOCS), documents=list(DOCS.values()))
    return collection


def test_query_finds_the_related_document(tmp_path: Path) -> None:
    collection = _fill(chromadb.PersistentClient(str(tmp_path)))
    hits = collection.query(query_texts=["anticoagulant with an NSAID, bleeding?"], n_results=3)
    assert hits["ids"][0][0] == "warfarin"
    assert hits["distances"][0][0] < hits["distances"][0][-1]
    # Cosine distance of unit rows is one minus their dot product (L2 would be twice that).
    query, top = ChromaEmbeddingFunction()(
        ["anticoagulant with an NSAID, bleeding?", DOCS["warfarin"]]
    )
    cosine = 1.0 - sum(a * b for a, b in zip(query, top, strict=True))
    assert hits["distances"][0][0] == pytest.approx(cosine, abs=1e-3)


def test_reopened_collection_uses_the_same_function(tmp_path: Path) -> None:
    _fill(chromadb.PersistentClient(str(tmp_path)))
    reopened = chromadb.PersistentClient(str(tmp_path)).get_collection("conditions")
    function = reopened.configuration["embedding_function"]
    assert isinstance(function, ChromaEmbeddingFunction)
    assert function.name() == CHROMA_NAME
    hits = reopened.query(query_texts=["wheezing and short of breath"], n_results=1)
    assert hits["ids"][0] == ["asthma"]


def test_returns_one_vector_per_document() -> None:
    vectors = ChromaEmbeddingFunction()(["one", "two"])
    assert len(vectors) == 2
    assert len(vectors[0]) == 384


def test_the_project_client_sends_no_telemetry(tmp_path: Path) -> None:
    client = persistent_client(tmp_path / "chroma")
    assert client.get_settings().anonymized_telemetry is False

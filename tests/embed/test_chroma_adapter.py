"""The Chroma adapter in a real persistent Chroma collection, with no model download."""

from __future__ import annotations

from pathlib import Path

import chromadb

from docgemma.embed.chroma import CHROMA_NAME, ChromaEmbeddingFunction

DOCS = {
    "asthma": "Asthma is a long-term condition of the airways causing wheeze and breathlessness.",
    "warfarin": "Warfarin combined with aspirin raises the risk of serious bleeding.",
    "gout": "Gout causes sudden severe pain and swelling in a joint, often the big toe.",
}


def _fill(client: chromadb.ClientAPI) -> chromadb.Collection:
    collection = client.get_or_create_collection(
        "conditions", embedding_function=ChromaEmbeddingFunction()
    )
    collection.add(ids=list(DOCS), documents=list(DOCS.values()))
    return collection


def test_query_finds_the_related_document(tmp_path: Path) -> None:
    collection = _fill(chromadb.PersistentClient(str(tmp_path)))
    hits = collection.query(query_texts=["anticoagulant with an NSAID, bleeding?"], n_results=3)
    assert hits["ids"][0][0] == "warfarin"
    assert hits["distances"][0][0] < hits["distances"][0][-1]
    assert collection.configuration["hnsw"]["space"] == "cosine"


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

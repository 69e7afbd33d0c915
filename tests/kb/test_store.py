"""Section-level search on real Chroma with the real embedder, and rebuilding the store."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from chromadb.api.client import SharedSystemClient

from docgemma.config import Settings
from docgemma.embed.chroma import persistent_client
from docgemma.kb.corpus import DEMO_PAGES_DIR, CorpusError
from docgemma.kb.lexical import LEXICAL_WEIGHT
from docgemma.kb.models import KBHit
from docgemma.kb.store import KnowledgeBase, corpus_dir, ingested_dir
from docgemma.kb.topics import Role, Severity

ALLERGY = "his lips and tongue swelled up after eating peanuts and he is wheezing"


def test_search_returns_parent_pages_ranked_by_their_best_section(kb: KnowledgeBase) -> None:
    hits = kb.search(ALLERGY, k=5)
    top = hits[0]
    assert isinstance(top, KBHit) and top.page_id == "anaphylaxis"
    assert top.severity is Severity.A_AND_E and top.category == "emergencies"
    assert top.source == "DocGemma demonstration page: Anaphylaxis (severe allergic reaction)"
    assert top.sections[0].heading == "Symptoms" and top.score == top.sections[0].score
    assert top.content.startswith("Symptoms: Anaphylaxis is a severe")
    assert "When to get help: Call 999" in top.content
    assert [h.relevance for h in hits] == sorted((h.relevance for h in hits), reverse=True)
    assert all(h.score <= h.relevance <= h.score + LEXICAL_WEIGHT for h in hits)
    assert len({h.page_id for h in hits}) == len(hits) == 5
    assert all(0.0 <= h.score <= 1.0 for h in hits)


def test_search_is_deterministic(kb: KnowledgeBase) -> None:
    first = kb.search("burning when I pee", k=5)
    assert kb.search("burning   when I pee", k=5) == first


def test_role_restricts_the_categories_searched(kb: KnowledgeBase) -> None:
    query = "wheezing and tight chest at night"
    assert kb.search(query, k=1)[0].page_id == "asthma"
    dental = kb.search(query, role=Role.DENTAL_PATIENT, k=10)
    assert dental and {h.category for h in dental} <= {"dental", "infections", "emergencies"}


def test_category_and_subcategory_filters(kb: KnowledgeBase) -> None:
    hits = kb.search("pain", category="dental", subcategory="teeth", k=5)
    assert {h.page_id for h in hits} == {"toothache", "dental-abscess"}
    assert kb.search("pain", role=Role.DENTAL_PATIENT, category="respiratory") == []
    assert kb.search("   ") == []


def _count(store: Path) -> int:
    return persistent_client(store).get_collection("kb_sections").count()


def test_missing_or_empty_store_is_rebuilt_from_the_corpus(
    small_corpus: Path, tmp_path: Path
) -> None:
    store = tmp_path / "chroma"
    KnowledgeBase(persistent_client(store), small_corpus).collection()
    assert _count(store) == 12  # three pages, four sections each

    client = persistent_client(store)
    collection = client.get_collection("kb_sections")
    collection.delete(ids=collection.get()["ids"])  # emptied behind our back
    assert _count(store) == 0
    reopened = KnowledgeBase(persistent_client(store), small_corpus)
    assert reopened.search("big toe hot and swollen", k=1)[0].page_id == "gout"
    assert _count(store) == 12

    shutil.rmtree(store)  # the whole store removed, then the app starts again:
    SharedSystemClient.clear_system_cache()  # a new process has no cached handle on it
    fresh = KnowledgeBase(persistent_client(store), small_corpus)
    assert fresh.search("barking cough in a toddler", k=1)[0].page_id == "croup"


def test_changed_corpus_is_reindexed_and_unchanged_one_is_reused(
    small_corpus: Path, tmp_path: Path
) -> None:
    client = persistent_client(tmp_path / "chroma")
    first = KnowledgeBase(client, small_corpus).collection()
    assert KnowledgeBase(client, small_corpus).collection().id == first.id

    shutil.copy(DEMO_PAGES_DIR / "migraine.md", small_corpus / "migraine.md")
    rebuilt = KnowledgeBase(client, small_corpus)
    assert rebuilt.collection().id != first.id and rebuilt.collection().count() == 16
    assert rebuilt.search("zigzag lines before a one-sided headache", k=1)[0].page_id == "migraine"


def test_missing_corpus_folder_is_a_clear_error(tmp_path: Path) -> None:
    base = KnowledgeBase(persistent_client(tmp_path / "c"), tmp_path / "none")
    with pytest.raises(CorpusError, match="corpus folder not found"):
        base.search("headache")


def test_corpus_folder_choice(tmp_path: Path, small_corpus: Path) -> None:
    settings = Settings(data_dir=tmp_path / "var")
    assert corpus_dir(settings) == DEMO_PAGES_DIR
    ingested = ingested_dir(settings)
    ingested.mkdir(parents=True)
    assert corpus_dir(settings) == DEMO_PAGES_DIR  # an empty folder does not replace the demo
    shutil.copy(small_corpus / "gout.md", ingested / "gout.md")
    assert corpus_dir(settings) == ingested
    chosen = Settings(data_dir=tmp_path / "var", kb_corpus_dir=small_corpus)
    assert corpus_dir(chosen) == small_corpus
    user = KnowledgeBase.from_settings(chosen)
    assert not user.demo
    assert user.search("hot swollen big toe", k=1)[0].source == "Knowledge-base page: Gout"

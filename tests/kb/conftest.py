"""The knowledge base on the real demo corpus, real Chroma and the real MiniLM embedder.

The full index is the one built once per test process for every test that searches it
(``prebuilt_indexes``); tests that rebuild or break a store use a small corpus of their own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from prebuilt_indexes import built_indexes

from docgemma.embed.chroma import persistent_client
from docgemma.kb.corpus import DEMO_PAGES_DIR
from docgemma.kb.store import KnowledgeBase


@pytest.fixture(scope="session")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    store = tmp_path_factory.mktemp("kb") / "chroma"
    shutil.copytree(built_indexes(), store)
    base = KnowledgeBase(persistent_client(store), DEMO_PAGES_DIR)
    base.collection()
    return base


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    """Three demo pages copied into a folder of their own."""
    folder = tmp_path / "pages"
    folder.mkdir()
    for name in ("croup.md", "gout.md", "stroke.md"):
        shutil.copy(DEMO_PAGES_DIR / name, folder / name)
    return folder

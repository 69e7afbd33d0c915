"""``python -m docgemma.kb``: ingest user pages (Markdown and HTML), search, clear errors."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from docgemma.config import get_settings
from docgemma.kb.__main__ import main
from docgemma.kb.corpus import DEMO_PAGES_DIR, load_corpus

HTML = """<html><head><title>Nosebleed</title>
<meta name="category" content="eyes_ent"><meta name="subcategory" content="nose_throat">
<meta name="severity" content="self_care"></head><body><h1>Nosebleed</h1>
<h2>Symptoms</h2><p>Blood dripping from one nostril after picking or a dry, heated room.</p>
<h2>When to get help</h2><p>Go to A&amp;E if the bleeding lasts longer than 30 minutes.</p>
</body></html>"""


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    for key in list(os.environ):
        if key.startswith("DOCGEMMA_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("DOCGEMMA_DATA_DIR", str(tmp_path / "var"))
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def test_ingest_then_search_uses_the_user_pages(env: Path, capsys) -> None:
    source = env / "mine"
    source.mkdir()
    (source / "Nose Bleed.html").write_text(HTML, encoding="utf-8")
    shutil.copy(DEMO_PAGES_DIR / "gout.md", source / "gout.md")
    assert main(["ingest", str(source)]) == 0
    out = env / "var" / "kb" / "pages"
    assert sorted(p.name for p in out.iterdir()) == ["gout.md", "nose-bleed.md"]
    assert "ingested 2 pages" in capsys.readouterr().out
    assert [p.page_id for p in load_corpus(out)] == ["gout", "nose-bleed"]

    assert main(["search", "blood coming out of my nose", "-k", "2"]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].endswith("Nosebleed [eyes_ent/nose_throat]")
    assert "Knowledge-base page: Nosebleed; Self-care; best: Symptoms" in printed


def test_a_bad_page_stops_the_ingest_before_anything_is_written(env: Path, capsys) -> None:
    source = env / "mine"
    source.mkdir()
    (source / "good.html").write_text(HTML, encoding="utf-8")
    (source / "bad.md").write_text("---\ntitle: X\n---\n## Symptoms\nfoo\n", encoding="utf-8")
    assert main(["ingest", str(source)]) == 2
    assert "bad.md: missing category, subcategory, severity" in capsys.readouterr().err
    assert not (env / "var" / "kb" / "pages").exists()


def test_missing_corpus_folder_is_reported(env: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("DOCGEMMA_KB_CORPUS_DIR", str(env / "nowhere"))
    get_settings.cache_clear()
    assert main(["search", "headache"]) == 2
    assert "corpus folder not found" in capsys.readouterr().err

"""Condition pages: the demo corpus's shape, and parsing of Markdown and HTML pages."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from docgemma.kb.corpus import (
    CORE_SECTIONS,
    CorpusError,
    corpus_hash,
    load_corpus,
    parse_html,
    parse_markdown,
    parse_severity,
    read_page,
)
from docgemma.kb.topics import Severity, load_topics

EMERGENCIES = {"stroke", "heart-attack", "anaphylaxis", "sepsis", "meningitis"}


def test_demo_corpus_has_sixty_pages_with_the_four_sections_in_order() -> None:
    pages = load_corpus()
    assert len(pages) >= 60
    for page in pages:
        assert [s.heading for s in page.sections] == list(CORE_SECTIONS), page.page_id
        assert all(len(s.text) > 40 for s in page.sections), page.page_id


def test_every_category_is_covered_and_every_page_sits_in_the_hierarchy() -> None:
    topics = load_topics()
    pages = load_corpus()
    per_category = Counter(p.category for p in pages)
    assert set(per_category) == set(topics)
    assert min(per_category.values()) >= 4
    for page in pages:
        assert page.subcategory in topics[page.category].subcategories


def test_emergency_pages_advise_999_and_every_severity_is_used() -> None:
    pages = {p.page_id: p for p in load_corpus()}
    for page_id in EMERGENCIES:
        page = pages[page_id]
        assert page.severity is Severity.A_AND_E
        assert "999" in page.section("When to get help").text
    assert {p.severity for p in pages.values()} == set(Severity)


def test_severity_display_texts_and_parsing() -> None:
    assert [s.display for s in Severity] == ["Self-care", "Urgent Primary Care", "A&E or 999"]
    assert parse_severity("A&E or 999") is Severity.A_AND_E
    assert parse_severity(" self_care ") is Severity.SELF_CARE
    with pytest.raises(CorpusError, match="unknown severity 'soon'"):
        parse_severity("soon")


MARKDOWN = """---
title: Nosebleed
category: eyes_ent
subcategory: nose_throat
severity: self_care
---
# Nosebleed

## Symptoms
Blood running from one nostril.

## When To Get Help
Go to A&E if it lasts over 30 minutes.

## Treatment
Pinch the soft part of the nose.
"""


def test_markdown_page_keeps_its_sections_and_normalises_headings() -> None:
    page = parse_markdown("nosebleed", MARKDOWN, load_topics())
    assert page.title == "Nosebleed" and page.severity is Severity.SELF_CARE
    assert [s.heading for s in page.sections] == ["Symptoms", "When to get help", "Treatment"]
    assert page.section("Treatment").text == "Pinch the soft part of the nose."
    again = parse_markdown("nosebleed", page.markdown(), load_topics())
    assert again == page


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("category: eyes_ent", "category: ears"), "unknown category 'ears'"),
        (("subcategory: nose_throat", "subcategory: teeth"), "'teeth' is not under 'eyes_ent'"),
        (("severity: self_care\n", ""), "missing severity"),
        (("## Symptoms", "## Signs"), "no '## Symptoms' section"),
    ],
)
def test_bad_markdown_pages_fail_with_a_clear_message(change, message, tmp_path: Path) -> None:
    path = tmp_path / "nosebleed.md"
    path.write_text(MARKDOWN.replace(*change), encoding="utf-8")
    with pytest.raises(CorpusError, match=message) as raised:
        read_page(path)
    assert str(raised.value).startswith("nosebleed.md: ")


HTML = """<!doctype html><html><head><title>Earache | Example Health</title>
<meta name="category" content="eyes_ent"><meta name="subcategory" content="ears">
<meta name="severity" content="Urgent Primary Care"><style>h2 {color: red}</style></head>
<body><nav>Home</nav><h1>Earache</h1>
<h2>Symptoms</h2><p>Pain in the ear &amp; muffled hearing.</p>
<ul><li>a high temperature</li><li>fluid from the ear</li></ul>
<h2>When to get help</h2><p>See a GP if it lasts <b>three days</b>.</p>
<script>var tracking = 1;</script></body></html>"""


def test_html_page_is_parsed_with_the_standard_library_parser() -> None:
    page = parse_html("earache", HTML, load_topics())
    assert page.title == "Earache"
    assert page.severity is Severity.URGENT_PRIMARY_CARE
    symptoms = page.section("Symptoms").text
    assert "Pain in the ear & muffled hearing." in symptoms
    assert "- a high temperature" in symptoms and "- fluid from the ear" in symptoms
    assert page.section("When to get help").text == "See a GP if it lasts three days."
    assert "tracking" not in page.markdown() and "color" not in page.markdown()


def test_missing_or_empty_corpus_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="corpus folder not found"):
        load_corpus(tmp_path / "nowhere")
    with pytest.raises(CorpusError, match="no condition pages"):
        load_corpus(tmp_path)


def test_corpus_hash_follows_the_content(small_corpus: Path) -> None:
    before = corpus_hash(load_corpus(small_corpus))
    assert corpus_hash(load_corpus(small_corpus)) == before
    page = small_corpus / "gout.md"
    page.write_text(page.read_text().replace("big toe", "ankle"), encoding="utf-8")
    assert corpus_hash(load_corpus(small_corpus)) != before

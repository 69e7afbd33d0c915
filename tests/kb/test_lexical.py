"""Word coverage: the share of a query's rare-word weight a page contains."""

from __future__ import annotations

import pytest

from docgemma.kb.corpus import Page, Section
from docgemma.kb.lexical import WordIndex
from docgemma.kb.topics import Severity


def page(page_id: str, text: str) -> Page:
    return Page(
        page_id=page_id,
        title=page_id.title(),
        category="skin",
        subcategory="rashes",
        severity=Severity.SELF_CARE,
        sections=[Section(heading="Symptoms", text=text)],
    )


INDEX = WordIndex(
    [
        page("shingles", "A band of blisters on one side of the chest, with a rash."),
        page("chickenpox", "An itchy rash of spots that turn into blisters."),
        page("eczema", "Dry itchy skin with a rash in the creases."),
    ]
)


def test_a_page_with_every_query_word_covers_it_fully() -> None:
    assert INDEX.coverage("blistering band on the chest", "shingles") == pytest.approx(1.0)


def test_rare_words_weigh_more_than_common_ones() -> None:
    band = INDEX.coverage("rash band", "shingles") - INDEX.coverage("rash band", "eczema")
    assert INDEX.coverage("rash band", "eczema") < 0.5 < band


@pytest.mark.parametrize(
    "query",
    [
        "",
        "what is the",  # filler and stop words only
        "pancreatitis",  # a word no page has
    ],
)
def test_no_shared_topic_word_covers_nothing(query: str) -> None:
    assert INDEX.coverage(query, "shingles") == 0.0


def test_an_unknown_page_covers_nothing() -> None:
    assert INDEX.coverage("band of blisters", "gout") == 0.0

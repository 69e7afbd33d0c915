"""Uploaded documents as text and passages: accepted types, decoding, HTML reduced to its
visible text, passages cut within sections at paragraph and sentence ends, titles as plain
labels."""

from __future__ import annotations

import pytest

from docgemma.kb.document_text import (
    PASSAGE_CHARS,
    DocumentError,
    DocumentKind,
    clean_title,
    decode,
    kind_of,
    passages,
)


@pytest.mark.parametrize(
    ("content_type", "kind"),
    [
        ("text/markdown; charset=utf-8", DocumentKind.MARKDOWN),
        ("TEXT/HTML", DocumentKind.HTML),
        ("text/plain", DocumentKind.TEXT),
    ],
)
def test_accepted_types(content_type: str, kind: DocumentKind) -> None:
    assert kind_of(content_type) is kind


@pytest.mark.parametrize("content_type", ["application/pdf", "image/png", "", None])
def test_other_types_are_refused_naming_the_accepted_ones(content_type: str | None) -> None:
    with pytest.raises(DocumentError, match="text/markdown, text/x-markdown, text/html"):
        kind_of(content_type)


def test_markdown_passages_follow_the_headings() -> None:
    text = (
        "# Guide\n\nIntro line.\n\n## Dosing\nGive 5 mg.\n\nThen 10 mg."
        "\n\n## Monitoring\nCheck INR."
    )
    found = passages(text, DocumentKind.MARKDOWN)
    assert [(p.heading, p.text) for p in found] == [
        ("Guide", "Intro line."),
        ("Dosing", "Give 5 mg.\n\nThen 10 mg."),
        ("Monitoring", "Check INR."),
    ]


def test_long_text_is_cut_at_sentence_ends_within_the_limit() -> None:
    sentence = "The patient should rest and drink plenty of fluids every day. "
    found = passages(sentence * 40, DocumentKind.TEXT)
    assert len(found) > 1
    assert all(len(p.text) <= PASSAGE_CHARS for p in found)
    assert all(p.text.endswith("every day.") for p in found)


def test_html_keeps_visible_text_and_headings_only() -> None:
    html = (
        "<html><head><title>T</title><style>p{}</style></head><body>"
        "<h2>Referral</h2><p>Refer on <b>Thursday</b>.</p><script>steal()</script></body></html>"
    )
    [found] = passages(html, DocumentKind.HTML)
    assert (found.heading, found.text) == ("Referral", "Refer on Thursday.")


def test_plain_text_hash_lines_are_not_headings() -> None:
    [found] = passages("# not a heading\nbody", DocumentKind.TEXT)
    assert found.heading == "" and found.text == "# not a heading body"


@pytest.mark.parametrize(
    ("data", "reason"),
    [(b"", "empty"), (b"a\x00b", "NUL"), (b"caf\xe9", "not UTF-8")],
)
def test_undecodable_uploads_say_why(data: bytes, reason: str) -> None:
    with pytest.raises(DocumentError, match=reason):
        decode(data)


def test_titles_are_plain_labels() -> None:
    assert clean_title("  Ward\t7 <script>x</script> [link](http://a) ") == (
        "Ward 7 script x /script link (http://a)"
    )
    assert len(clean_title("x" * 500)) == 120
    with pytest.raises(DocumentError, match="title"):
        clean_title("<>[]`*")

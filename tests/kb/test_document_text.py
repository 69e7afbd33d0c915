"""Uploaded documents as text and passages: accepted types, decoding, HTML reduced to its
visible text, a PDF's text layer by page, passages cut within sections at paragraph and
sentence ends, titles as plain labels."""

from __future__ import annotations

import pytest
from pdf_file import text_pdf

from docgemma.kb import document_text as module
from docgemma.kb.document_text import (
    PASSAGE_CHARS,
    DocumentError,
    DocumentKind,
    clean_title,
    decode,
    document_text,
    kind_of,
    passages,
)


@pytest.mark.parametrize(
    ("content_type", "kind"),
    [
        ("text/markdown; charset=utf-8", DocumentKind.MARKDOWN),
        ("TEXT/HTML", DocumentKind.HTML),
        ("text/plain", DocumentKind.TEXT),
        ("application/pdf", DocumentKind.PDF),
    ],
)
def test_accepted_types(content_type: str, kind: DocumentKind) -> None:
    assert kind_of(content_type) is kind


@pytest.mark.parametrize("content_type", ["application/msword", "image/png", "", None])
def test_other_types_are_refused_naming_the_accepted_ones(content_type: str | None) -> None:
    with pytest.raises(DocumentError, match="text/markdown, text/x-markdown, text/html"):
        kind_of(content_type)


def test_a_pdfs_pages_are_its_sections() -> None:
    pdf = text_pdf(
        [
            ["Anticoagulation clinic (ward 7)", "Check the INR weekly until stable."],
            [],
            ["Bridging", "Stop warfarin 5 days before surgery."],
        ]
    )
    text = document_text(pdf, DocumentKind.PDF)
    found = passages(text, DocumentKind.PDF)
    assert [p.heading for p in found] == ["Page 1", "Page 3"]  # page 2 has no text
    assert "Anticoagulation clinic (ward 7)" in found[0].text
    assert "INR weekly" in found[0].text and "Stop warfarin 5 days" in found[1].text


def _encrypted(pdf: bytes, user_password: str = "secret") -> bytes:
    import io

    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    writer.encrypt(user_password, owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (text_pdf([[], []]), "no text layer"),
        (_encrypted(text_pdf([["Private."]])), "encrypted"),
        (b"%PDF-1.7\n1 0 obj<< /Type /Catalog /Pages 9 0 R", "could not be read"),
        (b"# A Markdown file sent as a PDF", "not a PDF"),
    ],
)
def test_pdfs_without_readable_text_are_refused_with_the_reason(data: bytes, reason: str) -> None:
    with pytest.raises(DocumentError, match=reason):
        document_text(data, DocumentKind.PDF)


def test_a_pdf_locked_only_against_editing_or_with_bytes_before_its_header_is_read() -> None:
    locked = _encrypted(text_pdf([["Read me."]]), user_password="")
    assert "Read me." in document_text(locked, DocumentKind.PDF)
    assert "Read me." in document_text(b"\x00junk\n" + text_pdf([["Read me."]]), DocumentKind.PDF)


def test_a_text_layers_broken_characters_are_stored_safely() -> None:
    text = module._printable("Dose\u00adadjust\x07ment \ud800 here")
    assert text.encode("utf-8") and "\u00ad" not in text and "\x07" not in text
    assert text.startswith("Doseadjust ment")


def test_a_pdf_longer_than_the_page_limit_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(module, "PDF_PAGES", 2)
    with pytest.raises(DocumentError, match="has 3 pages; at most 2"):
        module.pdf_text(text_pdf([["One."], ["Two."], ["Three."]]))


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

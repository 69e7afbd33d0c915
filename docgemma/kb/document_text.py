"""A tenant's uploaded document as plain text, cut into passages for the index.

Uploads are Markdown, HTML or plain text, decoded as UTF-8, or PDF, read from its text
layer (anything else is refused with a reason). HTML is reduced to its text (scripts and
styles dropped, ``<h1>``–``<h3>`` kept as headings); a PDF's pages become its sections
("Page 3"), so a retrieved passage says where in the file it stands; Markdown is kept as
written. Passages follow the headings and are
packed from whole paragraphs up to ``PASSAGE_CHARS``, so a retrieved passage reads as a
piece of the document rather than a window cut mid-sentence.
"""

from __future__ import annotations

import io
import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum
from html.parser import HTMLParser

PASSAGE_CHARS = 800
"""Longest passage. MiniLM reads 256 word pieces (about 1,000 characters of English), so a
longer passage would be embedded by its beginning only."""
TITLE_CHARS = 120
PDF_PAGES = 500
"""Most pages read from one PDF: a bound on the work one upload can cause (the byte limit
alone does not bound it, a PDF's streams are compressed)."""
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_NOT_TITLE = re.compile(r"[<>\[\]{}`*|\\]")


class DocumentKind(StrEnum):
    MARKDOWN = "markdown"
    HTML = "html"
    TEXT = "text"
    PDF = "pdf"


CONTENT_TYPES: dict[str, DocumentKind] = {
    "text/markdown": DocumentKind.MARKDOWN,
    "text/x-markdown": DocumentKind.MARKDOWN,
    "text/html": DocumentKind.HTML,
    "text/plain": DocumentKind.TEXT,
    "application/pdf": DocumentKind.PDF,
}
"""The upload types accepted, by the request's Content-Type (parameters such as a charset
are ignored; text must be UTF-8)."""


class DocumentError(ValueError):
    """An upload that cannot be indexed; the message says why, for the client."""


@dataclass(frozen=True)
class Passage:
    heading: str
    text: str


def kind_of(content_type: str | None) -> DocumentKind:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    kind = CONTENT_TYPES.get(media)
    if kind is None:
        accepted = ", ".join(CONTENT_TYPES)
        shown = media or "none"
        raise DocumentError(f"Content-Type {shown!r} is not accepted; send one of: {accepted}.")
    return kind


def clean_title(title: str) -> str:
    """A title as plain words: control characters and markup characters removed, spaces
    squashed, at most ``TITLE_CHARS``. It is shown, never used as a path or an id."""
    text = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in title)
    text = " ".join(_NOT_TITLE.sub(" ", text).split())[:TITLE_CHARS].strip()
    if not text:
        raise DocumentError("The document needs a title (letters or digits, not only symbols).")
    return text


def decode(data: bytes) -> str:
    if not data.strip():
        raise DocumentError("The document is empty.")
    if b"\x00" in data:
        raise DocumentError("The document is not text (it contains NUL bytes).")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"The document is not UTF-8 text (byte {exc.start}).") from exc


def pdf_text(data: bytes) -> str:
    """The text layer of a PDF, each page that has text under a ``# Page n`` heading.

    A scanned PDF (pictures of pages) has no text layer and is refused with that reason,
    as are damaged files and files that need a password to open: nothing here reads a
    picture or guesses a password. A PDF locked only against editing (an empty user
    password, as published guidelines often are) opens and is read.
    """
    from pypdf import PdfReader

    if b"%PDF-" not in data[:1024]:  # the format allows a little before its header
        raise DocumentError("The document is not a PDF (no %PDF- header at its start).")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError("The PDF is encrypted; upload a copy without a password.")
        count = len(reader.pages)
        if count > PDF_PAGES:
            raise DocumentError(f"The PDF has {count} pages; at most {PDF_PAGES} are read.")
        pages = [(n, reader.pages[n - 1].extract_text() or "") for n in range(1, count + 1)]
    except DocumentError:
        raise
    except Exception as exc:  # a damaged file fails in many ways inside the reader
        raise DocumentError("The PDF could not be read; it may be damaged.") from exc
    text = "\n\n".join(
        f"# Page {n}\n\n{_printable(page)}" for n, page in pages if _printable(page).strip()
    )
    if not text:
        raise DocumentError(
            "The PDF has no text layer (a scan?); upload a PDF with text, or the text itself."
        )
    return text


def _printable(text: str) -> str:
    """The text as the index can store it: control characters other than line ends as
    spaces, soft hyphens dropped, and a lone surrogate (a text layer's broken character,
    which no UTF-8 store accepts) as the replacement character."""
    text = text.replace("\u00ad", "").encode("utf-8", "replace").decode("utf-8")
    return "".join(" " if unicodedata.category(c) == "Cc" and c != "\n" else c for c in text)


def document_text(data: bytes, kind: DocumentKind) -> str:
    """An upload's text: the PDF's text layer, or the bytes decoded as UTF-8."""
    return pdf_text(data) if kind is DocumentKind.PDF else decode(data)


class _Text(HTMLParser):
    """Visible text of an HTML document; headings become Markdown-style ``#`` lines."""

    _HEADINGS = {"h1": "#", "h2": "##", "h3": "###"}
    _BLOCKS = {"p", "div", "li", "br", "tr", "section", "article", "h4", "h5", "h6"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "template", "head"):
            self._skip += 1
        elif tag in self._HEADINGS:
            self.parts.append(f"\n\n{self._HEADINGS[tag]} ")
        elif tag in self._BLOCKS:
            self.parts.append("\n\n" if tag == "p" else "\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "template", "head"):
            self._skip = max(0, self._skip - 1)
        elif tag in self._HEADINGS or tag == "p":
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def plain_text(text: str, kind: DocumentKind) -> str:
    if kind is DocumentKind.HTML:
        parser = _Text()
        parser.feed(text)
        parser.close()
        text = "".join(parser.parts)
    lines = [" ".join(line.split()) for line in text.replace("\r\n", "\n").split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _sections(text: str, headed: bool) -> list[tuple[str, list[str]]]:
    """(heading, paragraphs) in document order; ``headed``: ``#`` lines start sections."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for block in re.split(r"\n\s*\n", text):
        lines = block.strip().split("\n")
        heading = _MARKDOWN_HEADING.match(lines[0]) if headed else None
        if heading is not None:
            sections.append((heading.group(2).strip(), []))
            lines = lines[1:]
        body = " ".join(line.strip() for line in lines if line.strip())
        if body:
            sections[-1][1].append(body)
    return [(h, paragraphs) for h, paragraphs in sections if paragraphs]


def _pieces(paragraph: str) -> list[str]:
    """A paragraph longer than a passage, cut at sentence ends (or hard, if it has none)."""
    if len(paragraph) <= PASSAGE_CHARS:
        return [paragraph]
    pieces, current = [], ""
    for sentence in re.split(r"(?<=[.!?])\s+", paragraph):
        while len(sentence) > PASSAGE_CHARS:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[:PASSAGE_CHARS])
            sentence = sentence[PASSAGE_CHARS:]
        if current and len(current) + 1 + len(sentence) > PASSAGE_CHARS:
            pieces.append(current)
            current = ""
        current = f"{current} {sentence}".strip()
    return [*pieces, current] if current else pieces


def passages(text: str, kind: DocumentKind) -> list[Passage]:
    """The document's passages: each within one section, whole paragraphs packed together."""
    found: list[Passage] = []
    for heading, paragraphs in _sections(plain_text(text, kind), kind is not DocumentKind.TEXT):
        current = ""
        for paragraph in (p for whole in paragraphs for p in _pieces(whole)):
            if current and len(current) + 2 + len(paragraph) > PASSAGE_CHARS:
                found.append(Passage(heading, current))
                current = ""
            current = f"{current}\n\n{paragraph}".strip()
        if current:
            found.append(Passage(heading, current))
    if not found:
        raise DocumentError("The document has no text to index.")
    return found

"""Condition pages: parsed from Markdown (front matter + ``##`` sections) or HTML.

A page is a parent document; its sections (symptoms, when to get help, self-care,
causes) are what the index embeds. Pages are validated against the topic hierarchy
when they are read, so a typo in a category fails with the file's name, not later.
"""

from __future__ import annotations

import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path

from pydantic import BaseModel, Field

from docgemma.kb.topics import SEVERITY_DISPLAY, Category, Severity, load_topics

DEMO_PAGES_DIR = Path(__file__).resolve().parents[2] / "data" / "kb" / "pages"
PAGE_SUFFIXES = (".md", ".markdown", ".html", ".htm")
CORE_SECTIONS = ("Symptoms", "When to get help", "Self-care", "Causes")
"""The sections every demo page has, in page order; other headings are kept as they are."""
_SLUG = re.compile(r"[^a-z0-9]+")
_HEADING_ALIASES = {"selfcare": "Self-care", "whentogethelp": "When to get help"}


class CorpusError(ValueError):
    """A page or the corpus folder cannot be used; the message names the file."""


class Section(BaseModel):
    heading: str
    text: str


class Page(BaseModel):
    page_id: str = Field(description="Slug of the file name, stable across rebuilds")
    title: str
    category: str
    subcategory: str
    severity: Severity
    sections: list[Section]

    def section(self, heading: str) -> Section | None:
        return next((s for s in self.sections if s.heading == heading), None)

    def markdown(self) -> str:
        """The canonical Markdown form (what ``ingest`` writes and the hash covers)."""
        head = (
            f"---\ntitle: {self.title}\ncategory: {self.category}\n"
            f"subcategory: {self.subcategory}\nseverity: {self.severity.value}\n---\n"
        )
        body = "\n\n".join(f"## {s.heading}\n{s.text}" for s in self.sections)
        return f"{head}\n{body}\n"


def slug(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")


def parse_severity(value: str) -> Severity:
    """An enum value (``a_and_e``) or a display text (``A&E or 999``)."""
    wanted = value.strip().lower()
    for severity in Severity:
        if wanted in (severity.value, SEVERITY_DISPLAY[severity].lower()):
            return severity
    choices = ", ".join(s.value for s in Severity)
    raise CorpusError(f"unknown severity {value!r}; use one of {choices}")


def _heading(text: str) -> str:
    clean = " ".join(text.split()).strip(" #:")
    return _HEADING_ALIASES.get(re.sub(r"[^a-z]", "", clean.lower()), clean[:1].upper() + clean[1:])


def _build_page(
    page_id: str, meta: dict[str, str], sections: list[Section], topics: dict[str, Category]
) -> Page:
    missing = [k for k in ("title", "category", "subcategory", "severity") if not meta.get(k)]
    if missing:
        raise CorpusError(f"missing {', '.join(missing)}")
    category = topics.get(meta["category"])
    if category is None:
        raise CorpusError(f"unknown category {meta['category']!r}; known: {', '.join(topics)}")
    if meta["subcategory"] not in category.subcategories:
        raise CorpusError(
            f"sub-category {meta['subcategory']!r} is not under {category.key!r}; "
            f"known: {', '.join(category.subcategories)}"
        )
    sections = [s for s in sections if s.text]
    if not any(s.heading == "Symptoms" for s in sections):
        raise CorpusError("no '## Symptoms' section")
    return Page(
        page_id=page_id,
        title=meta["title"],
        category=meta["category"],
        subcategory=meta["subcategory"],
        severity=parse_severity(meta["severity"]),
        sections=sections,
    )


def parse_markdown(page_id: str, text: str, topics: dict[str, Category]) -> Page:
    """Front matter of ``key: value`` lines between ``---`` fences, then ``## Heading`` sections."""
    lines = text.replace("\r\n", "\n").split("\n")
    meta: dict[str, str] = {}
    if lines and lines[0].strip() == "---":
        try:
            end = lines.index("---", 1)
        except ValueError as exc:
            raise CorpusError("front matter is not closed with '---'") from exc
        for line in lines[1:end]:
            key, _, value = line.partition(":")
            meta[key.strip().lower()] = value.strip().strip("\"'")
        lines = lines[end + 1 :]
    sections: list[Section] = []
    heading, body = None, []
    for line in [*lines, "## "]:
        if line.startswith("## "):
            if heading:
                sections.append(Section(heading=heading, text="\n".join(body).strip()))
            heading, body = _heading(line[3:]), []
        elif line.startswith("# ") and not meta.get("title"):
            meta["title"] = line[2:].strip()
        elif heading:
            body.append(line.rstrip())
    return _build_page(page_id, meta, sections, topics)


class _PageHTML(HTMLParser):
    """Collects ``<meta name=... content=...>``, the title, and text under each ``<h2>``."""

    _BLOCKS = {"p", "li", "div", "br", "tr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.sections: list[tuple[str, list[str]]] = []
        self._in: str | None = None
        self._buffer: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "meta" and attributes.get("name") and attributes.get("content"):
            self.meta[str(attributes["name"]).lower()] = str(attributes["content"])
        elif tag in ("script", "style"):
            self._skip += 1
        elif tag in ("title", "h1", "h2"):
            self._in, self._buffer = tag, []
        elif tag == "li" and self.sections:
            self.sections[-1][1].append("\n- ")
        elif tag in self._BLOCKS and self.sections:
            self.sections[-1][1].append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif tag == self._in:
            text = " ".join("".join(self._buffer).split())
            if tag == "h2":
                self.sections.append((_heading(text), []))
            elif text:
                self.meta.setdefault("title" if tag == "h1" else "html_title", text)
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in:
            self._buffer.append(data)
        elif self.sections:
            self.sections[-1][1].append(data)


def parse_html(page_id: str, text: str, topics: dict[str, Category]) -> Page:
    """An HTML page: ``<meta name="category">`` (and subcategory, severity); ``<h2>`` sections."""
    parser = _PageHTML()
    parser.feed(text)
    parser.close()
    meta = dict(parser.meta)
    meta.setdefault("title", meta.get("html_title", ""))
    sections = []
    for heading, parts in parser.sections:
        lines = [" ".join(line.split()) for line in "".join(parts).split("\n")]
        body = "\n".join(line for line in lines if line and line != "-")
        sections.append(Section(heading=heading, text=body))
    return _build_page(page_id, meta, sections, topics)


def read_page(path: Path, topics: dict[str, Category] | None = None) -> Page:
    topics = topics if topics is not None else load_topics()
    text = path.read_text(encoding="utf-8")
    parse = parse_html if path.suffix.lower() in (".html", ".htm") else parse_markdown
    try:
        return parse(slug(path.stem), text, topics)
    except CorpusError as exc:
        raise CorpusError(f"{path.name}: {exc}") from exc


def page_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in PAGE_SUFFIXES)


def load_corpus(folder: Path = DEMO_PAGES_DIR) -> list[Page]:
    """Every page in ``folder``, sorted by id; a missing or empty folder is a clear error."""
    if not folder.is_dir():
        raise CorpusError(f"knowledge-base corpus folder not found: {folder}")
    topics = load_topics()
    pages = [read_page(path, topics) for path in page_files(folder)]
    if not pages:
        raise CorpusError(f"no condition pages (.md or .html) in {folder}")
    ids = [p.page_id for p in pages]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise CorpusError(f"two files give the same page id: {', '.join(repeated)}")
    return sorted(pages, key=lambda p: p.page_id)


def corpus_hash(pages: list[Page], *, salt: str = "") -> str:
    """Changes whenever a page (or ``salt``: embedder and chunking version) changes."""
    digest = hashlib.sha256(salt.encode())
    for page in pages:
        digest.update(page.page_id.encode() + b"\0" + page.markdown().encode() + b"\0")
    return digest.hexdigest()[:32]

"""What an answer may rest on: the turn's retrieved texts, numbered once.

A source is a label, a text and where it came from. Each successful tool result gives one
source per entry of its ``sources`` list; a result that lists several (a literature search
marks each article ``[k]`` at the start of its lines) is cut at those markers, so the text
of source ``n`` is its own passage and the result's heading. A result that lists none is
one source under its clinical label. The active patient's record summary, an offline
reference passage and an attached image's findings are sources too. Numbers are given in
order of first appearance and shared by equal titles, so ``[n]`` in the answer is entry
``n`` of the sources list the clinician sees.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from docgemma.agent.state import ToolResult

MARKER = re.compile(r"^\s*\[(\d{1,2})\]")
"""A tool's own numbering of its sources, at the start of a line."""
CITATION = re.compile(r"\s*\[(\d{1,2})\]")
"""A citation ``[n]`` anywhere in text."""
PASSAGE_CHARS = 1500
"""Per source, what the synthesis prompt shows (the head: tools put what matters first)."""


@dataclass(frozen=True)
class Passage:
    n: int
    title: str
    text: str
    """The whole retrieved text of this source; the prompt shows its head."""
    kind: str = "reference"
    url: str | None = None
    label: str = ""
    """The clinical label of the lookup that found it."""
    heading: str = ""
    """The heading of a result that lists several sources, repeated in each one's text: it
    gives each passage its context but is not what any one source says."""
    citable: tuple[str, ...] | None = None
    """The parts of ``text`` its tool marked as what the source says (a label's sections, an
    abstract, a graded interaction): a statement may quote only these. None: all of it."""

    def source(self) -> dict[str, Any]:
        """The sources-list entry (``tools.base.Source`` as JSON)."""
        entry: dict[str, Any] = {"title": self.title, "kind": self.kind}
        if self.url:
            entry["url"] = self.url
        return entry


def _split(text: str, count: int) -> tuple[str, dict[int, str]]:
    """A result's text cut at its own ``[k]`` markers: its heading, and the heading joined to
    each passage."""
    heading: list[str] = []
    parts: dict[int, list[str]] = {}
    current: int | None = None
    for line in text.splitlines():
        marker = MARKER.match(line)
        if marker and 1 <= int(marker.group(1)) <= count:
            current = int(marker.group(1))
            parts.setdefault(current, [])
            line = line[marker.end() :].strip()
        (parts[current] if current is not None else heading).append(line)
    head = "\n".join(heading).strip()
    return head, {
        k: "\n".join(p for p in (head, "\n".join(lines).strip()) if p) for k, lines in parts.items()
    }


class Numbering:
    """The turn's sources, numbered as they are added."""

    def __init__(self) -> None:
        self.passages: list[Passage] = []
        self._by_title: dict[tuple[str, str | None], int] = {}

    def add(
        self,
        title: str,
        text: str,
        kind: str,
        url: str | None = None,
        label: str = "",
        heading: str = "",
        citable: tuple[str, ...] | None = None,
    ) -> None:
        key = (title, url)
        if key in self._by_title:  # the same source again: its texts are joined
            i = self._by_title[key] - 1
            old = self.passages[i]
            joined = old.text if text in old.text else f"{old.text}\n{text}"
            either = None if old.citable is None or citable is None else old.citable + citable
            self.passages[i] = replace(old, text=joined, citable=either)
            return
        n = len(self.passages) + 1
        self._by_title[key] = n
        self.passages.append(Passage(n, title, text, kind, url, label, heading, citable))

    def add_result(self, result: ToolResult) -> None:
        listed = result["sources"]
        marked = result.get("passages")
        if not listed:
            text = CITATION.sub("", result["formatted_result"])
            label = result["tool_label"]
            self.add(label, text, "reference", label=label, citable=_texts(marked, 0))
            return
        head, split = (
            _split(result["formatted_result"], len(listed)) if len(listed) > 1 else ("", {})
        )
        for k, source in enumerate(listed, 1):
            own = split.get(k)
            self.add(
                source["title"],
                own or result["formatted_result"],
                source.get("kind", "reference"),
                source.get("url"),
                result["tool_label"],
                head if own else "",
                _texts(marked, k - 1),
            )


def _texts(marked: list[dict[str, Any]] | None, source: int) -> tuple[str, ...] | None:
    """The texts a tool marked citable for its source number ``source`` (0-based)."""
    if marked is None:
        return None
    return tuple(p["text"] for p in marked if p["source"] == source)


def gather(
    results: Sequence[ToolResult],
    *,
    record: tuple[str, str] | None = None,
    reference: Passage | None = None,
    image: str = "",
) -> list[Passage]:
    """The turn's sources: successful results, then the record summary ``(title, text)``,
    an offline reference passage and the image findings."""
    numbering = Numbering()
    for result in results:
        if result["error_type"] is None and result["formatted_result"].strip():
            numbering.add_result(result)
    if record is not None:
        numbering.add(record[0], record[1], "ehr", label="Patient record")
    if reference is not None:
        numbering.add(
            reference.title, reference.text, reference.kind, reference.url, reference.label
        )
    if image:
        numbering.add("Image findings (model analysis of the attached image)", image, "image")
    return numbering.passages


def shown(passage: Passage) -> str:
    """The head of a source that the prompt shows, cut at a word."""
    text = passage.text
    if len(text) > PASSAGE_CHARS:
        text = text[:PASSAGE_CHARS].rsplit(" ", 1)[0] + " …"
    return text.strip()


def prompt_text(passages: Sequence[Passage]) -> str:
    """The numbered sources as the model reads them."""
    blocks = []
    for p in passages:
        head = f"[{p.n}] {p.title}" + (f" ({p.label})" if p.label and p.label != p.title else "")
        blocks.append(f"{head}\n{shown(p)}")
    return "\n\n".join(blocks)

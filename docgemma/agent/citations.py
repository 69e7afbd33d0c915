"""One ``[n]`` numbering for a whole answer.

Each tool numbers its own sources (a literature search lists ``[1]``, ``[2]``…), so two
results in one turn would both say ``[1]``. Before synthesis the turn's sources are
numbered once, in order of first appearance, duplicates merged; each result's own
markers are rewritten to those numbers and every source is listed under its number,
so the model cites what the ``sources`` list (and the UI's links) will show.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from docgemma.agent.rules import with_label
from docgemma.agent.state import ToolResult

CITATION_MARKER = re.compile(r"\[(\d{1,2})\]")
"""A citation ``[n]``, as the numbered sources list writes it and answers cite it."""


@dataclass(frozen=True)
class Numbered:
    sources: list[dict[str, Any]]
    """The turn's sources; source ``n`` is ``sources[n - 1]``."""
    texts: list[str]
    """Each successful result under its label, markers renumbered and its sources listed."""
    facts: list[str]
    """Each successful result's shortened text alone, markers renumbered."""
    numbers: list[tuple[int, ...]]
    """Each successful result's sources, by their numbers."""


def _key(source: dict[str, Any]) -> tuple[str, str | None]:
    return source["title"], source.get("url")


def number_sources(
    results: list[ToolResult], shorten: Callable[[str], str] = lambda text: text
) -> Numbered:
    """Global numbers for the successful results' sources, and their texts to show the model.

    ``shorten`` cuts each result to what the prompt needs (its key facts) before numbering.
    """
    numbers: dict[tuple[str, str | None], int] = {}
    sources: list[dict[str, Any]] = []
    texts: list[str] = []
    facts: list[str] = []
    cited: list[tuple[int, ...]] = []
    for result in results:
        if result["error_type"] is not None:
            continue
        local: dict[int, int] = {}
        for k, source in enumerate(result["sources"], 1):
            if _key(source) not in numbers:
                sources.append(source)
                numbers[_key(source)] = len(sources)
            local[k] = numbers[_key(source)]
        text = CITATION_MARKER.sub(
            lambda m, local=local: (
                f"[{local[int(m.group(1))]}]" if int(m.group(1)) in local else m.group(0)
            ),
            shorten(result["formatted_result"]),
        )
        listed = [f"[{n}] {result['sources'][k - 1]['title']}" for k, n in local.items()]
        cite = "\nCite as: " + "; ".join(listed) if listed else ""
        texts.append(with_label(result["tool_label"], text + cite))
        facts.append(text)
        cited.append(tuple(dict.fromkeys(local.values())))
    return Numbered(sources=sources, texts=texts, facts=facts, numbers=cited)


def drop_unknown_citations(answer: str, count: int) -> str:
    """The answer without ``[n]`` markers that name no source (a model cites ``[1]`` from
    habit even when nothing was consulted); markers of real sources stay."""
    text = CITATION_MARKER.sub(
        lambda m: m.group(0) if 1 <= int(m.group(1)) <= count else "", answer
    )
    return re.sub(r"[ \t]+([.,;:])", r"\1", re.sub(r"[ \t]{2,}", " ", text))

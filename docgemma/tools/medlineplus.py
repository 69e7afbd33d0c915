"""MedlinePlus health topics (US National Library of Medicine): a condition source online.

The health-topic web service (``Settings.medlineplus_url``) answers a keyword search with
ranked topics in XML: a title, the topic page's address, other names and a summary written
by NLM. The summary arrives as escaped HTML with the matched words highlighted; only its
text is kept. The service is free and needs no key; its content is in the public domain
and is cited as MedlinePlus with the topic's address.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

import httpx

from docgemma.tools.base import ToolErrorType
from docgemma.tools.http import ToolFailure, get_text
from docgemma.tools.text import shorten, squash

SERVICE = "MedlinePlus (US National Library of Medicine)"
MAX_TOPICS = 3
SUMMARY_CHARS = 700
_TAG = re.compile(r"<[^>]+>")
_TOPIC_PAGE = re.compile(r"^https://medlineplus\.gov/[\w./-]+$")
"""Only MedlinePlus's own pages are linked: the address is shown to the clinician."""


@dataclass(frozen=True)
class Topic:
    title: str
    url: str | None
    summary: str
    also_called: tuple[str, ...] = ()


def _plain(text: str | None) -> str:
    """Text of an escaped-HTML field: tags removed, entities decoded, spaces folded."""
    return squash(html.unescape(_TAG.sub(" ", html.unescape(text or ""))))


def parse_topics(body: str) -> list[Topic]:
    """Topics of a search response, best first; no ``list`` element means no match."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise ToolFailure(
            ToolErrorType.MALFORMED_RESPONSE, f"unreadable MedlinePlus XML: {exc}"
        ) from exc
    if root.tag != "nlmSearchResult":
        raise ToolFailure(
            ToolErrorType.MALFORMED_RESPONSE, f"unexpected MedlinePlus root <{root.tag}>"
        )
    topics = []
    for document in root.iter("document"):
        fields: dict[str, list[str]] = {}
        for content in document.findall("content"):
            fields.setdefault(content.get("name", ""), []).append(_plain(content.text))
        title = next(iter(fields.get("title", [])), "")
        summary = next(iter(fields.get("FullSummary", [])), "") or next(
            iter(fields.get("snippet", [])), ""
        )
        if not title or not summary:
            continue
        url = document.get("url", "")
        topics.append(
            Topic(
                title=title,
                url=url if _TOPIC_PAGE.match(url) else None,
                summary=shorten(summary, SUMMARY_CHARS),
                also_called=tuple(a for a in fields.get("altTitle", []) if a and a != title),
            )
        )
    return topics


async def search_topics(
    client: httpx.AsyncClient, settings: Any, term: str, deadline_s: float
) -> list[Topic]:
    """The best few health topics for ``term`` (blocking nothing; one request)."""
    params = {"db": "healthTopics", "term": term, "retmax": MAX_TOPICS, "rettype": "brief"}
    body = await get_text(client, settings.medlineplus_url, params, deadline_s=deadline_s)
    return parse_topics(body)[:MAX_TOPICS]

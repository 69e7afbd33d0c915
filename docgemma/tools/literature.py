"""Medical Literature: Europe PMC search online, a local PubMedQA abstract index offline.

Europe PMC covers PubMed (and more) and needs no key. When the app runs offline,
or Europe PMC cannot be reached, the search runs on the local index of real
PubMed abstracts instead, and the output says so. Either way only the articles that
address the question are listed (``docgemma.tools.relevance``); when none does, the result
says the literature searched does not cover it and lists nothing.
"""

from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path
from typing import Any

from docgemma.tools.args import LiteratureSearchArgs
from docgemma.tools.base import (
    Passage,
    Source,
    ToolContext,
    ToolErrorType,
    ToolExample,
    ToolOutcome,
    ToolSpec,
)
from docgemma.tools.facts import RequestPattern, ToolRole
from docgemma.tools.guard import guarded
from docgemma.tools.http import (
    ToolFailure,
    client_for,
    error_outcome,
    get_json,
)
from docgemma.tools.literature_index import PROVENANCE, get_index
from docgemma.tools.outcomes import UNREACHABLE
from docgemma.tools.relevance import asked_forms, not_covered, relevant_indexes
from docgemma.tools.text import shorten, squash

LABEL = "Medical Literature"
EUROPE_PMC_URL = "https://www.ebi.ac.uk/europepmc/webservices/rest/search"
MAX_RESULTS = 5
SNIPPET_CHARS = 350
MIN_SIMILARITY = 0.3
"""Offline hits below this cosine similarity are unrelated to the query and are dropped."""
_TAG = re.compile(r"<[^>]+>")


def _plain(text: str | None) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", text or "")).split())


def _article_url(record: dict[str, Any]) -> str | None:
    if record.get("pmid"):
        return f"https://pubmed.ncbi.nlm.nih.gov/{record['pmid']}/"
    if record.get("source") and record.get("id"):
        return f"https://europepmc.org/article/{record['source']}/{record['id']}"
    if record.get("doi"):
        return f"https://doi.org/{record['doi']}"
    return None


def parse_europepmc(body: Any) -> list[dict[str, Any]]:
    """Articles from a Europe PMC search response (``core`` or ``lite`` result type)."""
    if not isinstance(body, dict) or not isinstance(body.get("resultList"), dict):
        raise ToolFailure(
            ToolErrorType.MALFORMED_RESPONSE, f"unexpected Europe PMC body: {str(body)[:200]}"
        )
    articles = []
    for record in body["resultList"].get("result") or []:
        journal = ((record.get("journalInfo") or {}).get("journal") or {}).get("title")
        articles.append(
            {
                "title": _plain(record.get("title")).rstrip(".") or "Untitled",
                "authors": shorten(record.get("authorString") or "", 120),
                "journal": journal or record.get("journalTitle"),
                "year": record.get("pubYear"),
                "pmid": record.get("pmid"),
                "doi": record.get("doi"),
                "abstract": shorten(_plain(record.get("abstractText")), SNIPPET_CHARS),
                "url": _article_url(record),
            }
        )
    return articles


def format_articles(query: str, articles: list[dict[str, Any]], provenance: str) -> str:
    lines = [f"Literature on “{query}” — {provenance}:"]
    for n, a in enumerate(articles, 1):
        where = ", ".join(str(x) for x in (a.get("journal"), a.get("year")) if x)
        who = f" {a['authors']}" if a.get("authors") else ""
        ref = f" PMID {a['pmid']}." if a.get("pmid") else ""
        lines.append(f"[{n}] {a['title']}.{who}{' ' + where + '.' if where else ''}{ref}")
        if a.get("abstract"):
            lines.append(f"    {a['abstract']}")
    return "\n".join(lines)


async def _search_online(ctx: ToolContext, query: str) -> list[dict[str, Any]]:
    params = {"query": query, "format": "json", "resultType": "core", "pageSize": MAX_RESULTS}
    async with client_for(ctx) as client:
        body = await get_json(
            client, EUROPE_PMC_URL, params, deadline_s=ctx.settings.tool_timeout_s
        )
    return parse_europepmc(body)[:MAX_RESULTS]


def search_offline(data_dir: Path, size: int, query: str) -> list[dict[str, Any]]:
    """Blocking: the closest local abstracts above the relevance floor."""
    hits = get_index(data_dir, size).search(query, k=MAX_RESULTS)
    return [
        {
            "title": h.title.rstrip("?"),
            "abstract": shorten(h.text, SNIPPET_CHARS),
            "similarity": round(h.similarity, 3),
            "url": None,
        }
        for h in hits
        if h.similarity >= MIN_SIMILARITY
    ]


async def _search_offline(settings: Any, query: str) -> list[dict[str, Any]]:
    """The local search within the tool deadline.

    The first use embeds the abstracts (tens of seconds on a small CPU). If that outlasts
    the deadline, the build carries on in its thread and the clinician is told to retry.
    """
    call = asyncio.to_thread(
        search_offline, settings.data_dir, settings.literature_index_size, query
    )
    try:
        return await asyncio.wait_for(call, timeout=settings.tool_timeout_s)
    except TimeoutError as exc:
        raise ToolFailure(
            ToolErrorType.TIMEOUT,
            f"offline literature index not ready within {settings.tool_timeout_s} s",
            message=(
                "The offline Medical Literature index is being prepared (first use, about a "
                "minute). Please try again shortly."
            ),
        ) from exc


def _outcome(
    ctx: ToolContext, query: str, articles: list[dict[str, Any]], offline: bool
) -> ToolOutcome:
    provenance = PROVENANCE if offline else "Europe PMC (PubMed and more)"
    if not articles:
        return error_outcome(
            ToolErrorType.NOT_FOUND, LABEL, entity=f"“{query}”", detail=f"no results ({provenance})"
        )
    asked = asked_forms(ctx.question, query)
    texts = [f"{a['title']}. {a.get('abstract') or ''}" for a in articles]
    kept = relevant_indexes(ctx.settings, asked, texts)
    if not kept:
        searched = "the offline literature index" if offline else "Europe PMC"
        return not_covered(LABEL, f"“{query}”", searched)
    articles = [articles[n] | {"relevance": v.similarity} for n, v in kept]
    sources = [Source(title=a["title"], url=a.get("url"), kind="literature") for a in articles]
    return ToolOutcome(
        data={"query": query, "articles": articles, "offline": offline, "provenance": provenance},
        formatted=format_articles(query, articles, provenance),
        entity=query,
        sources=sources,
        passages=[
            Passage(source=n, section="Abstract", text=a["abstract"], relevance=a["relevance"])
            for n, a in enumerate(articles)
            if a.get("abstract")
        ],
    )


@guarded(LABEL, lambda a: f"“{squash(a.query)}”")
async def search_medical_literature(args: LiteratureSearchArgs, ctx: ToolContext) -> ToolOutcome:
    query = squash(args.query)
    if not query:
        return error_outcome(
            ToolErrorType.INVALID_ARGS,
            LABEL,
            detail=f"query={args.query!r}",
            message="A search topic is needed to search the medical literature.",
        )
    if not ctx.settings.offline:
        try:
            articles = await _search_online(ctx, query)
            return await asyncio.to_thread(_outcome, ctx, query, articles, False)
        except ToolFailure as failure:
            if failure.error_type not in UNREACHABLE:
                raise
    articles = await _search_offline(ctx.settings, query)
    return await asyncio.to_thread(_outcome, ctx, query, articles, True)


SPEC = ToolSpec(
    name="search_medical_literature",
    label=LABEL,
    description=(
        "Search PubMed and medical literature databases for published studies, systematic "
        "reviews, and clinical evidence. Use when a clinician asks about research, evidence, "
        "studies, or medical literature on a topic."
    ),
    short_description="Published studies and evidence on a topic.",
    args=LiteratureSearchArgs,
    run=search_medical_literature,
    example=ToolExample(
        query="What does the evidence say about SGLT2 inhibitors in heart failure?",
        args={"query": "SGLT2 inhibitors heart failure"},
    ),
    role=ToolRole.SEARCHES_EVIDENCE,
    brief_answer=True,
    requested_by=(
        RequestPattern(
            "literature_search",
            any_of=("studies", "study", "research", "evidence", "literature", "PubMed"),
        ),
    ),
)

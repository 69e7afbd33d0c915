"""Condition Knowledge Base: the local condition pages, and MedlinePlus health topics online.

The pages are searched in the local Chroma index with the embedder, no model call; online,
the MedlinePlus health-topic service (NLM) is asked too, and if it cannot be reached the
pages answer alone and the result says so. Of what both return, only what addresses the
question is kept (``docgemma.tools.relevance``): an unrelated query gets a plain "the
available sources do not cover it" instead of the least bad page. In a tenant's API
session the tenant's own documents are searched and judged the same way and listed after
the pages.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from docgemma.kb import KBHit, Role, get_knowledge_base
from docgemma.kb.documents import DocumentPassage
from docgemma.kb.models import DEMO_NOTICE, DEMO_SOURCE_PREFIX, USER_SOURCE_PREFIX
from docgemma.kb.retrieve import RELEVANCE_THRESHOLD
from docgemma.tools import medlineplus
from docgemma.tools.args import KnowledgeBaseArgs
from docgemma.tools.base import (
    Passage,
    Source,
    ToolContext,
    ToolErrorType,
    ToolExample,
    ToolOutcome,
    ToolSpec,
)
from docgemma.tools.facts import ToolRole
from docgemma.tools.guard import guarded
from docgemma.tools.http import ToolFailure, client_for, error_outcome
from docgemma.tools.medlineplus import Topic
from docgemma.tools.relevance import asked_forms, not_covered, relevant_indexes
from docgemma.tools.text import shorten, squash

log = logging.getLogger(__name__)
LABEL = "Condition Knowledge Base"
_SIMILARITY = " — similarity "
MAX_PAGES = 5
MAX_PASSAGES = 3
"""At most this many of a tenant's own document passages per search."""
CONTENT_CHARS = 600
MEDLINEPLUS_SHARE_OF_DEADLINE = 0.6
"""MedlinePlus gets this share of the tool's deadline, leaving time for the pages."""
MEDLINEPLUS_SOURCE_PREFIX = "MedlinePlus"
_CONDITION_SOURCES = (DEMO_SOURCE_PREFIX, USER_SOURCE_PREFIX, MEDLINEPLUS_SOURCE_PREFIX)


def condition_of(source_title: str) -> str | None:
    """The condition a source of this tool is written about (a condition page's or a
    MedlinePlus topic's title); None for an organisation's own document, which may be a
    protocol about anything, and for any other source."""
    for prefix in _CONDITION_SOURCES:
        if source_title.startswith(f"{prefix}: "):
            return source_title[len(prefix) + 2 :]
    return None


def search_pages(settings: Any, query: str) -> tuple[list[KBHit], bool]:
    """Blocking: the pages above the knowledge base's own similarity floor, and whether they
    are demonstration content. Whether they address the question is judged afterwards."""
    kb = get_knowledge_base(settings)
    hits = kb.search(query, role=Role.CLINICIAN, k=MAX_PAGES)
    return [h for h in hits if h.score >= RELEVANCE_THRESHOLD], kb.demo


def search_documents(documents: Any, query: str) -> list[DocumentPassage]:
    """Blocking: the tenant's passages above the same similarity floor as a page."""
    if documents is None:
        return []
    return [p for p in documents.search(query, k=MAX_PASSAGES) if p.score >= RELEVANCE_THRESHOLD]


def document_source(passage: DocumentPassage) -> str:
    return f"{passage.label} (your organisation's document)"


def format_result(
    query: str,
    hits: list[KBHit],
    demo: bool,
    topics: list[Topic],
    note: str | None,
    documents: Sequence[DocumentPassage] = (),
) -> str:
    lines = []
    if hits:
        lines.append(f"Condition pages on “{query}”" + (f" ({DEMO_NOTICE})" if demo else "") + ":")
    for n, hit in enumerate(hits, 1):
        lines.append(
            f"[{n}] {hit.title}{_SIMILARITY}{hit.score:.2f}; usual urgency: "
            f"{hit.severity.display}. Source: {hit.source}."
        )
        lines.append(f"    {shorten(hit.content, CONTENT_CHARS)}")
    if topics:
        lines.append(f"MedlinePlus health topics on “{query}”:")
    for n, topic in enumerate(topics, len(hits) + 1):
        also = f" (also called {', '.join(topic.also_called)})" if topic.also_called else ""
        lines.append(f"[{n}] {topic.title}{also}. Source: MedlinePlus.")
        lines.append(f"    {topic.summary}")
    if documents:
        lines.append(f"Your organisation's documents on “{query}”:")
    for n, passage in enumerate(documents, len(hits) + len(topics) + 1):
        lines.append(
            f"[{n}] {passage.label}{_SIMILARITY}{passage.score:.2f}. "
            f"Source: {document_source(passage)}."
        )
        lines.append(f"    {shorten(passage.text, CONTENT_CHARS)}")
    if note:
        lines.append(note)
    return "\n".join(lines)


def _search_local(
    settings: Any, documents: Any, query: str
) -> tuple[list[KBHit], bool, list[DocumentPassage]]:
    hits, demo = search_pages(settings, query)
    return hits, demo, search_documents(documents, query)


async def _pages(
    settings: Any, documents: Any, query: str
) -> tuple[list[KBHit], bool, list[DocumentPassage]]:
    try:
        return await asyncio.wait_for(
            asyncio.to_thread(_search_local, settings, documents, query),
            timeout=settings.tool_timeout_s,
        )
    except TimeoutError as exc:
        raise ToolFailure(
            ToolErrorType.TIMEOUT,
            f"knowledge base not ready within {settings.tool_timeout_s} s",
            message="The condition knowledge base is being prepared. Please try again shortly.",
        ) from exc


async def _topics(ctx: ToolContext, query: str) -> tuple[list[Topic], str | None]:
    """MedlinePlus's topics online, and a note when it was asked and could not answer."""
    if ctx.settings.offline:
        return [], None
    deadline = ctx.settings.tool_timeout_s * MEDLINEPLUS_SHARE_OF_DEADLINE
    try:
        async with client_for(ctx) as client:
            return await medlineplus.search_topics(client, ctx.settings, query, deadline), None
    except ToolFailure as failure:
        log.info("MedlinePlus failed (%s): %s", failure.error_type.value, failure.detail)
        return (
            [],
            f"{medlineplus.SERVICE} could not be consulted; the condition pages answer alone.",
        )


def _judge(
    settings: Any,
    asked: list[str],
    hits: list[KBHit],
    topics: list[Topic],
    documents: list[DocumentPassage],
) -> tuple[
    list[tuple[KBHit, float]], list[tuple[Topic, float]], list[tuple[DocumentPassage, float]]
]:
    """Blocking: the pages, topics and documents that address the question, with their
    similarity."""
    texts = (
        [f"{h.title}. {h.content}" for h in hits]
        + [f"{t.title}. {t.summary}" for t in topics]
        + [f"{p.title}. {p.text}" for p in documents]
    )
    kept = dict(relevant_indexes(settings, asked, texts))
    first_document = len(hits) + len(topics)
    return (
        [(h, kept[n].similarity) for n, h in enumerate(hits) if n in kept],
        [(t, kept[n].similarity) for n, t in enumerate(topics, len(hits)) if n in kept],
        [(p, kept[n].similarity) for n, p in enumerate(documents, first_document) if n in kept],
    )


@guarded(LABEL, lambda a: f"“{squash(a.query)}”")
async def search_knowledge_base(args: KnowledgeBaseArgs, ctx: ToolContext) -> ToolOutcome:
    query = squash(args.query)
    if not query:
        return error_outcome(
            ToolErrorType.INVALID_ARGS,
            LABEL,
            detail=f"query={args.query!r}",
            message="Symptoms or a condition are needed to search the knowledge base.",
        )
    (hits, demo, documents), (topics, note) = await asyncio.gather(
        _pages(ctx.settings, ctx.documents, query), _topics(ctx, query)
    )
    asked = asked_forms(ctx.question, query)
    pages, found, own = await asyncio.to_thread(
        _judge, ctx.settings, asked, hits, topics, documents
    )
    if not pages and not found and not own:
        searched = "the condition pages" + (
            "" if note or ctx.settings.offline else " and MedlinePlus"
        )
        return not_covered(LABEL, f"“{query}”", searched)
    hits = [h for h, _ in pages]
    sources = [Source(title=h.source, kind="reference") for h in hits]
    sources += [
        Source(title=f"{MEDLINEPLUS_SOURCE_PREFIX}: {t.title}", url=t.url, kind="reference")
        for t, _ in found
    ]
    sources += [Source(title=document_source(p), kind="reference") for p, _ in own]
    passages = (
        [
            Passage(source=n, section=h.title, text=squash(h.content), relevance=s)
            for n, (h, s) in enumerate(pages)
        ]
        + [
            Passage(source=n, section="Summary", text=t.summary, relevance=s)
            for n, (t, s) in enumerate(found, len(pages))
        ]
        + [
            Passage(source=n, section=p.title, text=squash(p.text), relevance=s)
            for n, (p, s) in enumerate(own, len(pages) + len(found))
        ]
    )
    return ToolOutcome(
        data={
            "query": query,
            "pages": [h.model_dump(mode="json", exclude={"sections"}) for h in hits],
            "medlineplus": [
                {"title": t.title, "url": t.url, "summary": t.summary} for t, _ in found
            ],
            "demonstration": demo and bool(hits),
            "documents": [p.model_dump(mode="json") for p, _ in own],
        },
        formatted=format_result(
            query, hits, demo, [t for t, _ in found], note, [p for p, _ in own]
        ),
        entity=query,
        sources=sources,
        passages=passages,
    )


SPEC = ToolSpec(
    name="search_knowledge_base",
    label=LABEL,
    description=(
        "Search the local knowledge base of plain-language condition pages (symptoms, when "
        "to get help, self-care, causes) with each condition's usual urgency: self-care, "
        "urgent primary care, or A&E/999. Use when a clinician asks which common conditions "
        "fit a set of symptoms, how urgent a presentation usually is, or for patient-friendly "
        "information about a common condition."
    ),
    short_description="Common conditions matching symptoms, with usual urgency.",
    args=KnowledgeBaseArgs,
    run=search_knowledge_base,
    role=ToolRole.SEARCHES_KNOWLEDGE_BASE,
    example=ToolExample(
        query="Which conditions fit a barking cough and noisy breathing in a toddler?",
        args={"query": "barking cough and noisy breathing in a toddler"},
    ),
)

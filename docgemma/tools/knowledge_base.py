"""Condition Knowledge Base: the clinician agent's view of the local condition pages.

Offline by construction: the pages are searched in the local Chroma index with the
embedder, no model call. Only pages above the knowledge base's relevance threshold that
share a word with the question are returned, each with its similarity score and source, so
an unrelated query gets a clear "nothing found" instead of the least bad page. In a
tenant's API session the tenant's own documents are searched the same way and listed
after the pages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from docgemma.kb import KBHit, Role, get_knowledge_base
from docgemma.kb.documents import DocumentPassage
from docgemma.kb.lexical import stems
from docgemma.kb.models import DEMO_NOTICE
from docgemma.kb.retrieve import RELEVANCE_THRESHOLD
from docgemma.tools.args import KnowledgeBaseArgs
from docgemma.tools.base import (
    Source,
    ToolContext,
    ToolErrorType,
    ToolExample,
    ToolOutcome,
    ToolSpec,
)
from docgemma.tools.facts import ToolRole
from docgemma.tools.guard import guarded
from docgemma.tools.http import ToolFailure, error_outcome
from docgemma.tools.text import shorten, squash

LABEL = "Condition Knowledge Base"
_SIMILARITY = " — similarity "
MAX_PAGES = 5
MAX_PASSAGES = 3
CONTENT_CHARS = 600


def search_pages(settings: Any, query: str) -> tuple[list[KBHit], bool]:
    """Blocking: the relevant pages, and whether they are demonstration content.

    A page must also share a word with the question. The embedder scores "What is the
    antidote for acetaminophen overdose?" 0.46 against the anaphylaxis page, above the 0.44
    of "What do the condition pages say about croup?" against croup, and the model wrote an
    antidote from the anaphylaxis page. Of the 86 lay descriptions of the knowledge base's
    evaluation and the agent evaluation's 4 knowledge-base questions, every expected page
    above the threshold shares a word with its question."""
    kb = get_knowledge_base(settings)
    hits = kb.search(query, role=Role.CLINICIAN, k=MAX_PAGES)
    asked = stems(query)
    return [
        h
        for h in hits
        if h.score >= RELEVANCE_THRESHOLD and asked & stems(f"{h.title} {h.content}")
    ], kb.demo


def search_documents(documents: Any, query: str) -> list[DocumentPassage]:
    """Blocking: the tenant's passages that pass the same test as a page (threshold and a
    shared word)."""
    if documents is None:
        return []
    asked = stems(query)
    return [
        p
        for p in documents.search(query, k=MAX_PASSAGES)
        if p.score >= RELEVANCE_THRESHOLD and asked & stems(f"{p.title} {p.text}")
    ]


def document_source(passage: DocumentPassage) -> str:
    return f"{passage.label} (your organisation's document)"


def format_pages(
    query: str, hits: list[KBHit], demo: bool, passages: Sequence[DocumentPassage] = ()
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
    if passages:
        lines.append(f"Your organisation's documents on “{query}”:")
    for n, passage in enumerate(passages, len(hits) + 1):
        lines.append(
            f"[{n}] {passage.label}{_SIMILARITY}{passage.score:.2f}. "
            f"Source: {document_source(passage)}."
        )
        lines.append(f"    {shorten(passage.text, CONTENT_CHARS)}")
    return "\n".join(lines)


def _search_all(
    settings: Any, documents: Any, query: str
) -> tuple[list[KBHit], bool, list[DocumentPassage]]:
    hits, demo = search_pages(settings, query)
    return hits, demo, search_documents(documents, query)


async def _search(
    settings: Any, documents: Any, query: str
) -> tuple[list[KBHit], bool, list[DocumentPassage]]:
    try:
        return await asyncio.wait_for(
            asyncio.to_thread(_search_all, settings, documents, query),
            timeout=settings.tool_timeout_s,
        )
    except TimeoutError as exc:
        raise ToolFailure(
            ToolErrorType.TIMEOUT,
            f"knowledge base not ready within {settings.tool_timeout_s} s",
            message="The condition knowledge base is being prepared. Please try again shortly.",
        ) from exc


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
    hits, demo, passages = await _search(ctx.settings, ctx.documents, query)
    if not hits and not passages:
        return error_outcome(
            ToolErrorType.NOT_FOUND, LABEL, entity=f"“{query}”", detail="no page above threshold"
        )
    pages = [h.model_dump(mode="json", exclude={"sections"}) for h in hits]
    return ToolOutcome(
        data={
            "query": query,
            "pages": pages,
            "demonstration": demo,
            "documents": [p.model_dump(mode="json") for p in passages],
        },
        formatted=format_pages(query, hits, demo, passages),
        entity=query,
        sources=[Source(title=h.source, kind="reference") for h in hits]
        + [Source(title=document_source(p), kind="reference") for p in passages],
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
    # the best page's title: "[1] Gout — similarity 0.61; …" (renumbered beside other sources)
    headline=rf"\[\d+\] (?P<finding>.+?){_SIMILARITY}",
)

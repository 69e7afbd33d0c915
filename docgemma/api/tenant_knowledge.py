"""A tenant's documents as the first source a direct answer is grounded in.

A clinician's organisation knows its own protocols better than general pages: when one of
the tenant's passages covers a direct question (similarity at or above the threshold),
the answer rests on it and cites it; otherwise the agent's offline sources are asked as
before.
"""

from __future__ import annotations

import asyncio
import logging

from docgemma.agent.knowledge import Grounding, KnowledgeSource
from docgemma.kb.documents import TenantDocuments
from docgemma.tools.knowledge_base import document_source

log = logging.getLogger(__name__)


def tenant_grounding(
    documents: TenantDocuments, threshold: float, *, then: KnowledgeSource
) -> KnowledgeSource:
    """The tenant's best passage when it covers the question, else ``then``'s answer."""

    async def lookup(question: str) -> Grounding | None:
        try:
            found = await asyncio.to_thread(documents.search, question, 1)
        except Exception:  # a broken store costs its grounding, never the turn
            log.warning("searching the tenant's documents failed", exc_info=True)
            found = []
        if found and found[0].score >= threshold:
            best = found[0]
            return Grounding(
                best.label, best.text, best.score, document_source(best), kind="reference"
            )
        return await then(question)

    return lookup

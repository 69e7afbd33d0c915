"""Node ④b SEARCH_LITERATURE: the fallback search when the knowledge base has nothing relevant.

Runs the offline literature index (the ``search_medical_literature`` tool's own index)
in a worker thread. Its abstracts are evidence, not condition pages, so the
prediction that follows can only be "inconclusive" with a severity.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langgraph.runtime import Runtime

from docgemma.triage import stream
from docgemma.triage.deps import TriageDeps
from docgemma.triage.state import SourceRecord, TriageState

log = logging.getLogger(__name__)
LITERATURE_K = 3


async def search_literature(state: TriageState, runtime: Runtime[TriageDeps]) -> dict[str, Any]:
    deps = runtime.context
    stream.step("search_literature", "Searching the medical literature")
    query = state.get("search_query") or state["message"]
    hits = []
    if deps.literature is not None:
        try:
            hits = await asyncio.to_thread(deps.literature, query, LITERATURE_K)
        except Exception:  # an absent index must not end the turn; the answer says so
            log.exception("literature search failed")
    sources = [
        SourceRecord(
            id=f"literature-{n}",
            title=h.title,
            score=round(float(h.score), 4),
            kind="literature",
            source=h.source,
            severity=None,
            content=h.text,
        )
        for n, h in enumerate(hits, start=1)
    ]
    line = (
        f"Literature search returned {len(sources)} abstract(s)."
        if sources
        else "The literature search found nothing either; the condition will be inconclusive."
    )
    return {
        "sources": sources,
        "used_literature": True,
        "reasoning": state.get("reasoning", "") + stream.reason("search_literature", line),
    }

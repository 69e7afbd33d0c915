"""Node ③ RETRIEVE: the knowledge base's search (topic filter, query rewriting) for the query.

The knowledge base decides relevance and rewrites the query by its own threshold (at
most two attempts); this node records what it returned as plain data.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from docgemma.llm.errors import ModelUnavailable
from docgemma.triage import stream
from docgemma.triage.deps import TriageDeps
from docgemma.triage.state import TriageState

log = logging.getLogger(__name__)


async def retrieve(state: TriageState, runtime: Runtime[TriageDeps]) -> dict[str, Any]:
    query = state.get("search_query") or state["message"]
    stream.step("retrieve", "Searching the condition pages")
    try:
        deps = runtime.context
        earlier = [m["content"] for m in state.get("messages") or [] if m["role"] == "user"]
        retrieval = await deps.kb.retrieve(
            query, llm=deps.llm, role=deps.role, k=deps.k, earlier=earlier
        )
    except ModelUnavailable:
        return {"route": "fallback", "fallback": True, "search_query": query}
    return {"search_query": query, "tool_output": tool_output(query, retrieval)}


def tool_output(query: str, retrieval: Any) -> dict[str, Any]:
    """The retrieval as plain data for the checkpoint (what the turn looked up)."""
    hits = [
        {
            "page_id": h.page_id,
            "title": h.title,
            "category": h.category,
            "severity": getattr(h.severity, "name", str(h.severity)),
            "score": round(float(h.score), 4),
            "content": h.content,
            "source": h.source,
        }
        for h in retrieval.hits
    ]
    return {
        "query": query,
        "hits": hits,
        "relevant": bool(retrieval.found),
        "attempts": len(retrieval.attempts),
        "queries": [a.query for a in retrieval.attempts],
    }

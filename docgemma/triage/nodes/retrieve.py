"""Node ③ RETRIEVE: the knowledge base's search (topic filter, query rewriting) for the query.

The knowledge base decides relevance and retries by its own threshold; this node only
runs it off the event loop when it blocks, and records the pages it returned.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

from langgraph.runtime import Runtime

from docgemma.llm.errors import ModelUnavailable
from docgemma.triage.deps import TriageDeps
from docgemma.triage.events import TriageStep, emit
from docgemma.triage.state import TriageState

log = logging.getLogger(__name__)


async def run_retrieval(deps: TriageDeps, query: str) -> Any:
    """``kb.retrieve`` awaited when it is a coroutine, in a worker thread when it blocks."""
    call = deps.kb.retrieve
    if inspect.iscoroutinefunction(call):
        return await call(query, llm=deps.llm, role=deps.role, k=deps.k)
    result = await asyncio.to_thread(call, query, llm=deps.llm, role=deps.role, k=deps.k)
    return await result if inspect.isawaitable(result) else result


async def retrieve(state: TriageState, runtime: Runtime[TriageDeps]) -> dict[str, Any]:
    query = state.get("search_query") or state["message"]
    emit(TriageStep(node="retrieve", detail="Searching the condition pages"))
    try:
        retrieval = await run_retrieval(runtime.context, query)
    except ModelUnavailable:
        return {"route": "fallback", "fallback": True, "search_query": query}
    return {"search_query": query, "tool_output": tool_output(query, retrieval)}


def tool_output(query: str, retrieval: Any) -> dict[str, Any]:
    """The retrieval as plain data for the checkpoint (seed 000's tool artifact)."""
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
    relevant = getattr(retrieval, "relevant", None)
    return {
        "query": query,
        "hits": hits,
        "relevant": bool(hits) if relevant is None else bool(relevant),
        "attempts": int(getattr(retrieval, "attempts", 1)),
    }

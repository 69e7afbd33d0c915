"""Node ④ PROCESS_TOOL_RESPONSE: the retrieved pages become the turn's sources (no model call).

Code decides what happens next: relevant pages go to reasoning; nothing relevant
sends the turn to the literature search.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from docgemma.severity import Severity
from docgemma.triage import stream
from docgemma.triage.deps import TriageDeps
from docgemma.triage.state import SourceRecord, TriageState


def page_severity(name: str) -> str | None:
    """The page's severity in our spelling; None for a value we do not know."""
    try:
        return Severity[name].value
    except KeyError:
        return None


async def process_tool_response(state: TriageState, runtime: Runtime[TriageDeps]) -> dict[str, Any]:
    stream.step("process_tool_response", "Reading the pages found")
    output = state.get("tool_output") or {}
    hits = output.get("hits", []) if output.get("relevant") else []
    sources = [
        SourceRecord(
            id=h["page_id"],
            title=h["title"],
            score=h["score"],
            kind="knowledge_base",
            source=h["source"],
            severity=page_severity(h["severity"]),
            content=h["content"],
        )
        for h in hits
    ]
    attempts = int(output.get("attempts", 1))
    if sources:
        listed = "; ".join(f"{s['id']} ({s['score']:.2f})" for s in sources)
        line = f"Retrieved for “{output.get('query', '')}” after {attempts} attempt(s): {listed}."
    else:
        line = (
            f"No relevant condition page for “{output.get('query', '')}” after {attempts} "
            "attempt(s); searching the medical literature instead."
        )
    return {
        "sources": sources,
        "retrieval_attempts": attempts,
        "route": "generate" if sources else "literature",
        "reasoning": state.get("reasoning", "") + stream.reason("process_tool_response", line),
    }

"""Prompt sections built from state: history, entity hints, earlier results.

Shared by the nodes so every prompt shows the same facts the same way, and always
under clinical labels (never tool names, never raw errors).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from docgemma.agent.state import AgentState, ToolResult
from docgemma.routing.base import query_text
from docgemma.tools.text import squash

HISTORY_MESSAGES = 6
"""The last three exchanges (two to four earlier turns help a follow-up most)."""
KEPT_MESSAGES = 12
_RESULT_CHARS = 600


def history_text(history: Sequence[dict[str, str]]) -> str:
    if not history:
        return ""
    lines = ["Previous conversation:"]
    for turn in history:
        who = "Clinician" if turn["role"] == "user" else "Assistant"
        lines.append(f"{who}: {turn['content'][:400]}")
    return "\n".join(lines) + "\n\n"


def patient_ids_in(data: Any) -> list[str]:
    """Patient identifiers inside tool result data (``patient_id`` keys, or ``id`` of patients)."""
    found: list[str] = []

    def walk(node: Any, under_patients: bool) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "patient_id" or (under_patients and key == "id"):
                    if isinstance(value, str):
                        found.append(value)
                else:
                    walk(value, under_patients or key in ("patients", "matches", "patient"))
        elif isinstance(node, list):
            for item in node:
                walk(item, under_patients)

    walk(data, False)
    return list(dict.fromkeys(found))


def known_patient_ids(state: AgentState) -> list[str]:
    """IDs the turn can legitimately use: typed by the clinician, selected, or found by a search."""
    ids = list(state.get("extracted_entities", {}).get("patient_ids", []))
    if state.get("active_patient_id"):
        ids.insert(0, state["active_patient_id"])
    for result in state.get("tool_results", []):
        if result["error_type"] is None and (result.get("patient_matches") in (None, 1)):
            ids += patient_ids_in(result["result"])
    return list(dict.fromkeys(ids))


def entity_hints(state: AgentState) -> str:
    entities = state.get("extracted_entities") or {}
    lines = [f"Detected patient ID: {pid}" for pid in known_patient_ids(state)]
    drugs = entities.get("drug_mentions") or []
    if drugs:
        lines.append(f"Detected drug name{'s' if len(drugs) > 1 else ''}: {', '.join(drugs)}")
    if state.get("patient_summary"):
        lines.append(f"Active patient: {state['patient_summary'][:300]}")
    return "\n".join(lines) + ("\n" if lines else "")


def image_text(state: AgentState) -> str:
    """The attached image's findings, for every prompt after input assembly."""
    findings = state.get("image_findings")
    if not findings:
        return ""
    lines = "\n".join(f"- {f}" for f in findings["findings"])
    return (
        f"Image findings ({findings['modality']}, confidence {findings['confidence']:.2f}):\n"
        f"{lines}\n"
    )


def results_text(results: Iterable[ToolResult], *, heading: str = "Results so far:") -> str:
    """Earlier results under their clinical labels (for the reactive loop's re-entry)."""
    parts = [f"[{r['tool_label']}] {r['formatted_result'][:_RESULT_CHARS]}" for r in results]
    return (heading + "\n" + "\n".join(parts) + "\n") if parts else ""


def clinical_context(state: AgentState) -> str:
    """The prompt's "Clinical context" line, only when the summary adds to the question.

    The embedding intent classifier writes no summary of its own: it copies the question,
    which would cost every later prompt a second reading of it (about 0.15 s on 2 cores).
    """
    summary = squash(state.get("task_summary") or "").removesuffix(" …")
    if not summary or squash(state["user_query"]).startswith(summary):
        return ""
    return f"Clinical context: {squash(state['task_summary'])}\n"


def classifier_text(state: AgentState) -> str:
    """The classifiers' input: the query after a short tail of the clinician's earlier messages."""
    earlier = [t["content"] for t in state.get("conversation_history", []) if t["role"] == "user"]
    return query_text(state["user_query"], earlier)

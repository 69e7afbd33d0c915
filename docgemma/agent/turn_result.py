"""Turn the graph's final state into the public ``TurnResult``."""

from __future__ import annotations

from typing import Any

from docgemma.agent.answer.compose import error_notes
from docgemma.agent.outcome import (
    WAITS_FOR_APPROVAL,
    ApprovalRequest,
    CitedStatement,
    TimelineEntry,
    ToolCallRecord,
    TurnResult,
)
from docgemma.agent.tracing import reasoning_timeline
from docgemma.tools.base import Source


def _common(values: dict[str, Any], notices: list[str]) -> dict[str, Any]:
    results = values.get("tool_results", [])
    return {
        "reasoning_timeline": reasoning_timeline(values),
        "intent": values.get("intent"),
        "tool_calls": [
            ToolCallRecord(
                tool=r["tool_name"],
                tool_label=r["tool_label"],
                args=r["args"],
                result_class=r.get("quality"),
                error_type=r["error_type"],
            )
            for r in results
        ],
        "model_calls": len(values.get("llm_calls", [])),
        "nodes_visited": list(values.get("nodes_visited", [])),
        "notices": [*notices, *values.get("notices", [])],
        "active_patient_id": values.get("active_patient_id"),
    }


def turn_result(values: dict[str, Any], notices: list[str]) -> TurnResult:
    return TurnResult(
        final_response=values.get("final_response") or "",
        confidence_level=values.get("confidence_level", "medium"),
        confidence_reason=values.get("confidence_reason", ""),
        sources_used=[Source(**s) for s in values.get("sources_used", [])],
        follow_up_questions=list(values.get("follow_up_questions", [])),
        clarification_requested=bool(values.get("clarification_request")),
        errors=error_notes(values),
        fallback_used=bool(values.get("fallback")),
        cited=[CitedStatement(**c) for c in values.get("cited", [])],
        left_out=list(values.get("left_out", [])),
        **_common(values, notices),
    )


def pending_result(
    values: dict[str, Any], request: ApprovalRequest, notices: list[str]
) -> TurnResult:
    """A turn paused on an EHR write: nothing written, the proposal waiting for the clinician."""
    timeline = _common(values, notices)
    steps = timeline["reasoning_timeline"]
    if request.review is not None:  # the pausing node's steps are not in the state yet
        steps.append(
            TimelineEntry(
                title=f"Checked the {request.tool_label.lower()} against the chart",
                detail=request.review.account(),
                status="error" if request.review.warnings else "done",
            )
        )
    steps.append(
        TimelineEntry(title="Waiting for approval", detail=request.summary, status="pending")
    )
    return TurnResult(
        final_response=(
            f"Please review and approve the proposed {request.summary}. "
            "Nothing has been written yet."
        ),
        pending_approval=request,
        confidence_level="medium",
        confidence_reason=WAITS_FOR_APPROVAL,
        **timeline,
    )

"""The answer object of a triage turn: what the UI, the API and the experiments read."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from docgemma.severity import Severity
from docgemma.triage.state import TriageState, condition_source


class SourceOut(BaseModel):
    id: str
    title: str
    score: float = Field(
        description="Similarity 0..1 (shown in the sources list, never in the answer)"
    )
    kind: str
    source: str


class TriageAnswer(BaseModel):
    answer: str
    """What the patient reads; the only assistant text stored in the history."""
    condition: str | None = None
    """A retrieved page id or "inconclusive"; None when no prediction was made."""
    condition_title: str | None = None
    severity: Severity | None = None
    action: str | None = None
    predicted_severity: Severity | None = None
    """The model's own severity, before the red-flag rules."""
    red_flags: list[str] = Field(default_factory=list)
    sources: list[SourceOut] = Field(default_factory=list)
    follow_ups: list[str] = Field(default_factory=list)
    reasoning: str = ""
    notices: list[str] = Field(default_factory=list)
    route: str = ""
    fallback: bool = False
    used_literature: bool = False
    llm_calls: list[str] = Field(default_factory=list)


def answer_from_state(values: dict[str, Any], notices: list[str]) -> TriageAnswer:
    state: TriageState = values  # type: ignore[assignment]
    severity = Severity(state["severity"]) if state.get("severity") else None
    predicted = state.get("predicted_severity")
    page = condition_source(state)
    return TriageAnswer(
        answer=state.get("answer", ""),
        condition=state.get("condition"),
        condition_title=page["title"] if page else None,
        severity=severity,
        action=severity.action if severity else None,
        predicted_severity=Severity(predicted) if predicted else None,
        red_flags=[f["title"] for f in state.get("red_flags") or []],
        sources=[
            SourceOut(
                id=s["id"], title=s["title"], score=s["score"], kind=s["kind"], source=s["source"]
            )
            for s in state.get("sources") or []
        ],
        follow_ups=list(state.get("follow_ups") or []),
        reasoning=state.get("reasoning", ""),
        notices=[*notices, *(state.get("notices") or [])],
        route=state.get("route", ""),
        fallback=bool(state.get("fallback")),
        used_literature=bool(state.get("used_literature")),
        llm_calls=list(state.get("llm_calls") or []),
    )

"""The triage graph's state, in sections. Plain JSON-like data: it is checkpointed per thread.

``messages`` is the visible conversation and holds only the patient's and the
assistant's turns; the reasoning of a turn lives in ``reasoning`` and is replaced on
the next turn, so it never enters the history a client can read back.
"""

from __future__ import annotations

from typing import Any, TypedDict

from docgemma.severity import Severity
from docgemma.triage.red_flags import FiredRule


class ChatMessage(TypedDict):
    role: str
    """``user`` or ``assistant``; nothing else is ever stored."""
    content: str


class SourceRecord(TypedDict):
    id: str
    title: str
    score: float
    kind: str
    """``knowledge_base`` or ``literature``."""
    source: str
    severity: str | None
    content: str


class TriageInput(TypedDict, total=False):
    """What a caller passes for one turn."""

    message: str
    demographics: dict[str, Any]
    notices: list[str]


class TriageState(TypedDict, total=False):
    # ── Input ──
    message: str
    demographics: dict[str, Any]
    messages: list[ChatMessage]
    notices: list[str]

    # ── Red flags (before the model) ──
    red_flags: list[dict[str, Any]]

    # ── Routing ──
    route: str
    """retrieve, reply or clarify (the model's choice), or fallback."""
    search_query: str
    direct_reply: str

    # ── Retrieval ──
    tool_output: dict[str, Any]
    """The knowledge base's answer as plain data: query, hits, relevant, attempts."""
    sources: list[SourceRecord]
    retrieval_attempts: int
    used_literature: bool

    # ── Reasoning and prediction ──
    reasoning: str
    """This turn's reasoning: rules, model thinking, decisions. Never in ``messages``."""
    analysis: str
    """The model's own analysis of this turn (full context: the reply is written from it)."""
    condition: str | None
    predicted_severity: str | None
    severity: str | None
    """Final severity after the red-flag rules."""

    # ── Answer ──
    answer: str
    follow_ups: list[str]
    fallback: bool
    llm_calls: list[str]


KEPT_MESSAGES = 12


def with_turn(state: TriageState, answer: str) -> list[ChatMessage]:
    """The visible history after this turn: the patient's message and the answer, nothing else."""
    return [
        *(state.get("messages") or []),
        ChatMessage(role="user", content=state["message"]),
        ChatMessage(role="assistant", content=answer),
    ][-KEPT_MESSAGES:]


def rule_record(fired: FiredRule) -> dict[str, Any]:
    """A fired rule as checkpoint data; ``fired_rules`` reads it back."""
    return {
        "rule_id": fired.rule_id,
        "title": fired.title,
        "advice": fired.advice,
        "severity": fired.severity.value,
        "evidence": list(fired.evidence),
    }


def fired_rules(state: TriageState) -> list[FiredRule]:
    """The red-flag rules recorded by ``screen`` as ``FiredRule`` objects."""
    return [
        FiredRule(
            f["rule_id"], f["title"], f["advice"], Severity(f["severity"]), tuple(f["evidence"])
        )
        for f in state.get("red_flags") or []
    ]


def condition_source(state: TriageState) -> SourceRecord | None:
    """The retrieved page the prediction named (None when inconclusive or not predicted)."""
    condition = state.get("condition")
    return next((s for s in state.get("sources") or [] if s["id"] == condition), None)

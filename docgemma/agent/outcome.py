"""What a turn of the agent returns to its callers (UI, API, CLI, experiments).

``Agent.run_turn`` and ``Agent.resume`` stream ``TraceEvent``s while the graph runs
and finish with one ``TurnResult``. When the agent proposes an EHR write the turn
ends with ``pending_approval`` set and nothing written; the caller answers with an
``ApprovalDecision`` through ``Agent.resume``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from docgemma.tools.base import Source
from docgemma.tools.write_review import WriteReview


class TimelineEntry(BaseModel):
    """One clinician-readable step of the reasoning timeline."""

    title: str
    detail: str = ""
    status: Literal["pending", "done", "error"] = "done"
    duration_s: float | None = None


class ToolCallRecord(BaseModel):
    tool: str
    tool_label: str
    args: dict[str, Any] = Field(default_factory=dict)
    result_class: str | None = None
    error_type: str | None = None


class ApprovalRequest(BaseModel):
    """A proposed EHR write waiting for the clinician."""

    tool: str
    tool_label: str
    args: dict[str, Any]
    summary: str
    """The proposed resource in clinician terms: drug, dose, frequency, patient."""
    idempotency_key: str
    review: WriteReview | None = None
    """What code found when it checked the write against the chart (``ToolSpec.review``);
    None for a write that has no such check."""
    replaces: str | None = None
    """A correction's card: the saved entry it replaces, in clinician terms; approving
    marks that entry entered in error in the same transaction."""


NOTHING_PENDING = "There is no proposed record change waiting for approval in this conversation."
"""The answer to an approval decision when no proposal waits (both modes give it)."""


class ApprovalDecision(BaseModel):
    action: Literal["approve", "edit", "reject"]
    args: dict[str, Any] | None = None
    """Edited arguments, with ``edit``; the write goes ahead with these."""
    approved_by: str = "clinician"
    reason: str | None = None
    idempotency_key: str | None = None
    """The key of the proposal the clinician saw; a different pending proposal is refused.
    The UI always sends it; None (scripts) means whatever is pending."""


class CitedStatement(BaseModel):
    """A statement of the model's shown in the answer, with the quote code found in its
    source: what a reviewer reads to judge whether the source says it."""

    text: str
    quote: str
    sources: list[int]
    """The ``[n]`` numbers it cites (entries of ``sources_used``, from 1)."""


class TurnResult(BaseModel):
    """The outcome of one turn (answer, confidence, sources, and what evaluation needs)."""

    final_response: str
    reasoning_timeline: list[TimelineEntry] = Field(default_factory=list)
    confidence_level: Literal["high", "medium", "low"] = "medium"
    confidence_reason: str = ""
    """Why the confidence is what it is, as code derived it ("every statement cited and its
    quote verified")."""
    sources_used: list[Source] = Field(default_factory=list)
    follow_up_questions: list[str] = Field(default_factory=list)
    intent: str | None = None
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    clarification_requested: bool = False
    errors: list[str] = Field(default_factory=list)
    """Pre-formatted error messages (never raw tool errors)."""
    pending_approval: ApprovalRequest | None = None
    model_calls: int = 0
    nodes_visited: list[str] = Field(default_factory=list)
    notices: list[str] = Field(default_factory=list)
    """Things the user should know about their input, e.g. that a long message was truncated."""
    fallback_used: bool = False
    cited: list[CitedStatement] = Field(default_factory=list)
    """The model's statements shown, each with its verified quote; none for code's answers."""
    left_out: list[str] = Field(default_factory=list)
    """Sentences (or last clauses) of the model's answer left out because they named things
    (drugs, conditions, dose forms, numbers) that the sources it cited do not."""
    active_patient_id: str | None = None
    """The patient the conversation is about after this turn: the one selected, or the one
    the agent found by name (so the page can show whom the next turn works on)."""


WAITS_FOR_APPROVAL = "nothing is answered yet: a record write waits for approval"
NO_SOURCE_ASKED = "no source was asked: the message needed none"
"""Confidence reasons of turns that answer nothing from a source."""

EMPTY_MESSAGE_REPLY = (
    "Please type a clinical question or request, for example “Check FDA warnings for dofetilide”."
)


def empty_message_result() -> TurnResult:
    """The reply to an empty message: written by code, so nothing needs to be loaded for it."""
    return TurnResult(
        final_response=EMPTY_MESSAGE_REPLY,
        confidence_level="low",
        confidence_reason=NO_SOURCE_ASKED,
    )

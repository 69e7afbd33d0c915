"""The graph's state (seed 002 §5), in sections, with the reducers LangGraph merges by.

The state persists per conversation thread in the checkpointer, so everything here
is plain JSON-like data. Per-turn lists use ``accumulate``: nodes append to them, and
``input_assembly`` resets them at the start of each turn by returning ``RESET``.
Conversation history and image findings deliberately survive across turns.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from docgemma.labels import ResultQuality
from docgemma.tools.outcomes import ToolErrorType

RESET_MARKER = "__reset__"
RESET: list[Any] = [RESET_MARKER]
"""Returned for an accumulated field to empty it (a new turn starts); items after it are kept."""


def accumulate(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    """``operator.add`` for lists; a leading ``RESET_MARKER`` starts the list afresh."""
    if right and right[0] == RESET_MARKER:
        return list(right[1:])
    return (left or []) + (right or [])


class ExtractedEntities(TypedDict):
    patient_ids: list[str]
    drug_mentions: list[str]
    """Generic names, in order of first mention (brand names resolved)."""
    action_verbs: list[str]
    has_image: bool


class ImageFindingsState(TypedDict):
    modality: str
    findings: list[str]
    confidence: float


class ToolResult(TypedDict):
    tool_name: str
    tool_label: str
    args: dict[str, Any]
    result: dict[str, Any]
    formatted_result: str
    """Clinician-readable text, or the pre-formatted error message; never a raw error."""
    error_type: ToolErrorType | None
    entity: str | None
    missing_fields: list[str]
    suggestions: list[str]
    patient_matches: int | None
    sources: list[dict[str, Any]]
    quality: ResultQuality | None
    """Result class from result_classify (None for skipped classification)."""
    retry: bool
    """True when this execution was a retry of the previous call."""
    executed: bool
    """False when validation stopped the call or the clinician rejected it."""


class AgentInput(TypedDict, total=False):
    """What a caller passes in for one turn (the narrow input state)."""

    user_query: str
    active_patient_id: str | None
    has_image: bool


class AgentState(TypedDict, total=False):
    # ── Input ──
    user_query: str
    turn_number: int
    """Counts this thread's turns (set by input_assembly); part of a write's idempotency key."""
    conversation: list[dict[str, str]]
    """All exchanged turns of this thread (role, content), trimmed to the last few."""
    conversation_history: list[dict[str, str]]
    """The last 2–4 turns used in prompts."""
    extracted_entities: ExtractedEntities
    has_image: bool
    image_findings: ImageFindingsState | None
    active_patient_id: str | None
    patient_summary: str | None

    # ── Intent classification ──
    intent: Literal["DIRECT", "TOOL_NEEDED"] | None
    task_summary: str
    suggested_tool: str | None

    # ── Tool loop ──
    current_tool: str | None
    current_args: dict[str, Any] | None
    retrying: bool
    """Set by the error handler: the next execution is a retry, not a new step."""
    pending_stage2_only: bool
    """Set by a retry with different arguments: keep the tool, re-extract its arguments."""
    tool_results: Annotated[list[ToolResult], accumulate]
    step_count: int
    retry_counts: dict[str, int]
    total_retries: int
    executed_writes: list[str]
    """Idempotency keys of EHR writes already executed in this thread."""

    # ── Result classification ──
    last_result_classification: str | None
    last_result_summary: str | None

    # ── Error handling ──
    error_messages: Annotated[list[str], accumulate]
    clarification_request: str | None
    skipped_tools: Annotated[list[str], accumulate]
    fallback: bool
    """The model became unavailable; the turn ends with the pre-written fallback."""

    # ── Synthesis (seed 003 dual output) ──
    final_response: str | None
    confidence_level: Literal["high", "medium", "low"]
    sources_used: list[dict[str, Any]]
    follow_up_questions: list[str]

    # ── Trace ──
    timeline: Annotated[list[dict[str, Any]], accumulate]
    nodes_visited: Annotated[list[str], accumulate]
    decisions: Annotated[list[dict[str, str]], accumulate]
    llm_calls: Annotated[list[str], accumulate]
    """One entry (the purpose) per model call of this turn; its length is the call count."""
    notices: Annotated[list[str], accumulate]

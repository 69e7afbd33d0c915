"""The graph's state, in sections, with the reducers LangGraph merges by.

The state persists per conversation thread in the checkpointer, so everything here
is plain JSON-like data. A field marked ``PerTurn`` starts each turn afresh
(``turn_start``, returned by ``input_assembly``); per-turn lists use ``accumulate``:
nodes append to them and ``RESET`` empties them. Unmarked fields — conversation
history, image findings, the active patient, executed writes — survive across turns.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypedDict, get_type_hints

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


@dataclass(frozen=True)
class PerTurn:
    """Marks a state field that each turn starts at ``start`` (accumulated lists: empty)."""

    start: Any = None


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
    passages: list[dict[str, Any]] | None
    """The citable texts of ``sources`` (``docgemma.tools.base.Passage``), relevant ones only;
    None when the tool marks none, so its whole text is citable."""
    quality: ResultQuality | None
    """Result class from result_classify (None for skipped classification)."""
    retry: bool
    """True when this execution was a retry of the previous call."""
    executed: bool
    """False when validation stopped the call or the clinician rejected it."""
    unchecked: list[str]
    """What the tool was asked about and could not check (``ToolOutcome.unchecked``)."""
    not_consulted: list[str]
    """References the tool could not reach while others answered (``ToolOutcome.not_consulted``)."""


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
    patient_summary: Annotated[str | None, PerTurn()]
    refusal: Annotated[str | None, PerTurn()]
    """The reply to a request the assistant declines (``harmful_requests``): the turn ends
    with it, without a model call or a tool."""
    cant_miss: Annotated[list[dict[str, Any]], PerTurn([])]
    """Rows of the red-flag table the question fired (``cant_miss.CantMiss``): the answer
    opens with their conditions and first steps."""

    # ── Intent classification ──
    intent: Annotated[Literal["DIRECT", "TOOL_NEEDED"] | None, PerTurn()]
    task_summary: Annotated[str, PerTurn("")]
    suggested_tool: Annotated[str | None, PerTurn()]

    # ── Tool loop ──
    current_tool: Annotated[str | None, PerTurn()]
    current_args: Annotated[dict[str, Any] | None, PerTurn()]
    retrying: Annotated[bool, PerTurn(False)]
    """Set by the error handler: the next execution is a retry, not a new step."""
    pending_stage2_only: Annotated[bool, PerTurn(False)]
    """Set by a retry with different arguments: keep the tool, re-extract its arguments."""
    tool_results: Annotated[list[ToolResult], PerTurn(), accumulate]
    step_count: Annotated[int, PerTurn(0)]
    retry_counts: Annotated[dict[str, int], PerTurn({})]
    total_retries: Annotated[int, PerTurn(0)]
    executed_writes: list[str]
    """Idempotency keys of EHR writes already executed in this thread."""
    unconfirmed_drugs: dict[str, Any] | None
    """A request held back for drug names no dictionary knows, with the names offered
    (``confirmation.unconfirmed``); the next message confirms them or drops it."""
    patient_choices: list[dict[str, Any]] | None
    """The records a name search listed when several matched (id, name, birth date, sex):
    the next message may pick one of them (``patient_choice``)."""
    unfound_patient: str | None
    """The name the latest patient search found no one for: "his chart" next refers to a
    patient who is not in the record."""
    declined_write: dict[str, Any] | None
    """The latest record write the clinician rejected (``amendment.DeclinedWrite``): "save it
    again with … added" proposes it anew with the change."""
    saved_write: dict[str, Any] | None
    """The latest record write saved with approval (``amendment.SavedWrite``): "make that
    20 mg" proposes it anew, corrected, replacing its entry."""
    reproposal: Annotated[dict[str, Any] | None, PerTurn()]
    """This turn's new proposal of the latest write (tool, arguments, why, and for a
    correction of a saved write ``replacing``: ``amendment.Replacing``), set by code from the
    clinician's reply; tool selection takes it instead of asking the model."""

    # ── Result classification ──
    last_result_classification: Annotated[str | None, PerTurn()]
    last_result_summary: Annotated[str | None, PerTurn()]

    # ── Error handling ──
    error_messages: Annotated[list[str], PerTurn(), accumulate]
    clarification_request: Annotated[str | None, PerTurn()]
    skipped_tools: Annotated[list[str], PerTurn(), accumulate]
    fallback: Annotated[bool, PerTurn(False)]
    """The model became unavailable; the turn ends with the pre-written fallback."""

    # ── Synthesis: the answer, its confidence and sources ──
    final_response: Annotated[str | None, PerTurn()]
    confidence_level: Annotated[Literal["high", "medium", "low"], PerTurn("medium")]
    confidence_reason: Annotated[str, PerTurn("")]
    sources_used: Annotated[list[dict[str, Any]], PerTurn([])]
    follow_up_questions: Annotated[list[str], PerTurn([])]
    """Per turn, so a turn paused for approval never shows the previous turn's sources."""
    cited: Annotated[list[dict[str, Any]], PerTurn([])]
    """The model's statements shown, each with its verified quote (``outcome.CitedStatement``)."""
    left_out: Annotated[list[str], PerTurn([])]
    """Sentences or last clauses of the model's answer left out: they named what its sources
    do not."""

    # ── Trace ──
    trace: Annotated[list[dict[str, Any]], PerTurn(), accumulate]
    """This turn's steps (``events.Step`` as JSON), each recorded once as it was streamed;
    its decisions and reasoning timeline are read from here (``tracing.recorded``)."""
    nodes_visited: Annotated[list[str], PerTurn(), accumulate]
    llm_calls: Annotated[list[str], PerTurn(), accumulate]
    """One entry (the purpose) per model call of this turn; its length is the call count."""
    notices: Annotated[list[str], PerTurn(), accumulate]


def _per_turn() -> dict[str, Any]:
    """Each ``PerTurn`` field and its start value, read from the annotations above."""
    fields: dict[str, Any] = {}
    for name, hint in get_type_hints(AgentState, include_extras=True).items():
        marks = getattr(hint, "__metadata__", ())
        for mark in marks:
            if isinstance(mark, PerTurn):
                fields[name] = RESET if accumulate in marks else mark.start
    return fields


PER_TURN: dict[str, Any] = _per_turn()


def turn_start() -> dict[str, Any]:
    """The update that starts a turn: every ``PerTurn`` field back to its start value."""
    return copy.deepcopy(PER_TURN)

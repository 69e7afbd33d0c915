"""The typed Server-Sent Events of ``POST /v1/chat/stream`` and ``POST /v1/approvals/{id}``.

Each SSE message carries ``event: <name>`` and a JSON ``data`` that validates against
the model of that name; ``data`` also repeats the name in ``event`` so a consumer can
parse it alone. ``translate`` turns the agent's trace events into these.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from docgemma.events import (
    AnswerToken,
    Decision,
    ErrorRaised,
    NodeFinished,
    NodeStarted,
    ResultClassified,
    ThinkingToken,
    ToolCalled,
    ToolFinished,
    TraceEvent,
)
from docgemma.tools.base import Source
from docgemma.tools.write_review import WriteReview

StepStatus = Literal["queued", "started", "finished", "decision", "tool", "tool_done", "error"]


class StepEvent(BaseModel):
    """The live timeline: a graph node starting or finishing, a decision, a tool call."""

    event: Literal["step"] = "step"
    node: str
    label: str = ""
    status: StepStatus
    duration_s: float | None = None
    decision: str | None = None
    detail: str = ""


class ThinkingEvent(BaseModel):
    """Reasoning text; shown apart, never part of the answer or the history."""

    event: Literal["thinking"] = "thinking"
    text: str


class TokenEvent(BaseModel):
    """A piece of the visible answer (already filtered); ``done`` has the final text."""

    event: Literal["token"] = "token"
    text: str


class SourceRef(BaseModel):
    n: int
    """The number the answer cites it by, ``[n]``."""
    title: str
    url: str | None = None
    kind: str = "reference"


class SourcesEvent(BaseModel):
    event: Literal["sources"] = "sources"
    sources: list[SourceRef]


class ApprovalRequiredEvent(BaseModel):
    """A proposed EHR write: nothing is written until ``POST /v1/approvals/{approval_id}``."""

    event: Literal["approval_required"] = "approval_required"
    approval_id: str
    tool: str
    tool_label: str
    args: dict[str, Any]
    summary: str
    review: WriteReview | None = None
    """What code found when it checked the write against the chart (a prescription: the
    patient's medications, allergies and kidney function); None for writes not checked."""
    replaces: str | None = None
    """A correction: the saved entry approving marks entered in error, in clinician terms."""


class DoneEvent(BaseModel):
    event: Literal["done"] = "done"
    session_id: str
    final_response: str
    citations: list[SourceRef]
    """The sources the answer actually cites."""
    confidence: Literal["high", "medium", "low"]
    confidence_reason: str = ""
    """Why, as code derived it from the answer's grounding."""
    suggested_questions: list[str]
    notices: list[str] = Field(default_factory=list)
    approval_pending: bool = False


class ErrorEvent(BaseModel):
    event: Literal["error"] = "error"
    message: str
    code: str


StreamEvent = Annotated[
    StepEvent
    | ThinkingEvent
    | TokenEvent
    | SourcesEvent
    | ApprovalRequiredEvent
    | DoneEvent
    | ErrorEvent,
    Field(discriminator="event"),
]
STREAM_EVENT: TypeAdapter[StreamEvent] = TypeAdapter(StreamEvent)


def translate(item: TraceEvent) -> StreamEvent | None:
    """The API's view of one trace event; None for internals (model usage, raw proposal)."""
    match item:
        case NodeStarted():
            return StepEvent(node=item.node, label=item.label, status="started")
        case NodeFinished():
            return StepEvent(
                node=item.node, label=item.label, status="finished", duration_s=item.duration_s
            )
        case Decision():
            return StepEvent(
                node=item.node,
                label=item.label,
                status="decision",
                decision=item.decision,
                detail=item.reason,
            )
        case ResultClassified():
            return StepEvent(
                node=item.node,
                label=item.label,
                status="decision",
                decision=item.quality,
                detail=item.summary,
            )
        case ToolCalled():
            return StepEvent(node=item.node, label=item.tool_label, status="tool")
        case ToolFinished():
            return StepEvent(
                node=item.node,
                label=item.tool_label,
                status="tool_done" if item.ok else "error",
                duration_s=item.duration_s,
                detail=item.summary,
            )
        case ErrorRaised():
            return StepEvent(node=item.node, label=item.label, status="error", detail=item.message)
        case AnswerToken():
            return TokenEvent(text=item.text)
        case ThinkingToken():
            return ThinkingEvent(text=item.text)
    return None


def numbered(sources: list[Source]) -> list[SourceRef]:
    return [SourceRef(n=n, **s.model_dump()) for n, s in enumerate(sources, 1)]

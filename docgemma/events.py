"""Typed trace events: what a graph tells the page, the API and the CLI while it runs.

One vocabulary for both graphs, the clinician agent and patient triage: nodes emit these
through LangGraph's custom stream (``emit``); consumers read ``stream_mode="custom"`` and
rebuild them with ``parse_event``. They carry no UI strings beyond a short
clinician-facing ``label``; presentation belongs to the consumer. The API's wire format
(``api.stream_events``) is the one translation, made for its clients.

The agent also keeps a node's steps (``Step``) in the state's ``trace``, each once: the
turn's decisions and its reasoning timeline are read from there (``agent.tracing``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter


class _Event(BaseModel):
    node: str
    """Internal node name, e.g. ``tool_select``."""
    label: str = ""
    """Clinician-facing step name, e.g. ``Choosing a source``."""


class NodeStarted(_Event):
    kind: Literal["node_started"] = "node_started"


class NodeFinished(_Event):
    kind: Literal["node_finished"] = "node_finished"
    duration_s: float = 0.0


class _Account(BaseModel):
    """A step told for the reasoning timeline; ``title`` empty when it is not shown there.
    A decision's ``detail`` defaults to its ``reason``."""

    title: str = ""
    detail: str = ""
    status: Literal["done", "error"] = "done"


class Decision(_Event, _Account):
    """A routing or classification outcome and the reason for it."""

    kind: Literal["decision"] = "decision"
    decision: str
    reason: str = ""


class StepNote(_Event, _Account):
    """A step that decides nothing but belongs in the timeline, e.g. the patient loaded."""

    kind: Literal["step_note"] = "step_note"
    title: str


class ToolCalled(_Event):
    kind: Literal["tool_called"] = "tool_called"
    tool: str
    tool_label: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolFinished(_Event):
    kind: Literal["tool_finished"] = "tool_finished"
    tool: str
    tool_label: str
    ok: bool
    error_type: str | None = None
    duration_s: float = 0.0
    summary: str = ""


class ResultClassified(_Event):
    kind: Literal["result_classified"] = "result_classified"
    quality: str
    summary: str = ""


class LLMUsage(_Event):
    kind: Literal["llm_usage"] = "llm_usage"
    purpose: str
    """intent, tool_select_1, tool_select_2, result_classify, retry, synthesize, image."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    key_order: list[str] = Field(default_factory=list)


class ApprovalRequested(_Event):
    kind: Literal["approval_requested"] = "approval_requested"
    tool: str
    tool_label: str
    args: dict[str, Any] = Field(default_factory=dict)
    summary: str = ""


class ErrorRaised(_Event):
    """A failure handled inside the graph (tool error, model unavailable)."""

    kind: Literal["error"] = "error"
    message: str


class AnswerToken(_Event):
    """A piece of the visible answer that passed the answer's checks (a verified statement,
    or an answer code wrote); never withdrawn. ``TurnResult.final_response`` is the whole
    answer, with any notes code adds at the end."""

    kind: Literal["answer_token"] = "answer_token"
    text: str


class ThinkingToken(_Event):
    """A piece of the model's reasoning (thinking on): shown apart, never in the answer."""

    kind: Literal["thinking_token"] = "thinking_token"
    text: str


TraceEvent = Annotated[
    NodeStarted
    | NodeFinished
    | Decision
    | StepNote
    | ToolCalled
    | ToolFinished
    | ResultClassified
    | LLMUsage
    | ApprovalRequested
    | ErrorRaised
    | AnswerToken
    | ThinkingToken,
    Field(discriminator="kind"),
]
_ADAPTER: TypeAdapter[TraceEvent] = TypeAdapter(TraceEvent)

Step = Decision | StepNote | ToolFinished | ResultClassified
"""The events a node records in the state's ``trace`` as well as streaming them."""


def parse_event(payload: dict[str, Any]) -> TraceEvent:
    return _ADAPTER.validate_python(payload)


def emit(event: TraceEvent) -> None:
    """Send an event to the running graph's custom stream; outside a graph run (a node
    called directly in a test) there is no writer and the event is dropped."""
    from langgraph.config import get_stream_writer  # not at import: vocabulary users need none

    try:
        writer = get_stream_writer()
    except (RuntimeError, KeyError):
        return
    writer(event.model_dump(mode="json"))

"""What the triage graph streams while it runs: steps, reasoning pieces, answer pieces.

Emitted through LangGraph's custom stream; the reasoning and the answer travel on
separate event kinds, so a consumer can never mix them. Outside a graph run (a node
called directly in a test) there is no writer and events are dropped.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter


class TriageStep(BaseModel):
    kind: Literal["step"] = "step"
    node: str
    detail: str = ""


class ReasoningPiece(BaseModel):
    kind: Literal["reasoning"] = "reasoning"
    text: str


class AnswerPiece(BaseModel):
    kind: Literal["answer"] = "answer"
    text: str


TriageEvent = Annotated[TriageStep | ReasoningPiece | AnswerPiece, Field(discriminator="kind")]
_ADAPTER: TypeAdapter[TriageEvent] = TypeAdapter(TriageEvent)


def parse_event(payload: dict[str, Any]) -> TriageEvent:
    return _ADAPTER.validate_python(payload)


def emit(event: TriageStep | ReasoningPiece | AnswerPiece) -> None:
    from langgraph.config import get_stream_writer  # not at import: the API loads this module

    try:
        writer = get_stream_writer()
    except (RuntimeError, KeyError):
        return
    writer(event.model_dump())


def reason(text: str) -> str:
    """Stream a reasoning line and return it for the state's ``reasoning`` record."""
    line = text if text.endswith("\n") else text + "\n"
    emit(ReasoningPiece(text=line))
    return line

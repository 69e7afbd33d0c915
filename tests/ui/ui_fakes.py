"""A small agent double with the real agent's contract, for UI logic tests.

It streams a scripted list of trace events and a ``TurnResult``; ``resume`` records
every decision it receives so tests can count submissions.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from docgemma.agent.outcome import ApprovalDecision, ApprovalRequest, ToolCallRecord, TurnResult
from docgemma.events import (
    AnswerToken,
    NodeFinished,
    NodeStarted,
    ResultClassified,
    ThinkingToken,
    ToolCalled,
    ToolFinished,
)
from docgemma.tools.base import Source
from docgemma.ui.panels import FOLLOW_UPS, PanelView


def direct_events(answer: str) -> list[Any]:
    return [
        NodeStarted(node="intent_classify", label="Understanding the question"),
        NodeFinished(node="intent_classify", label="Understanding the question", duration_s=0.1),
        NodeStarted(node="synthesize", label="Writing the answer"),
        *[AnswerToken(node="synthesize", text=w + " ") for w in answer.split()],
        NodeFinished(node="synthesize", label="Writing the answer", duration_s=0.2),
    ]


def reading_events() -> list[Any]:
    """The first step as the real graph reports it: too quick to time to the hundredth."""
    label = "Reading the question"
    return [
        NodeStarted(node="input_assembly", label=label),
        NodeFinished(node="input_assembly", label=label, duration_s=0.0002),
    ]


def thinking_events(thought: str, answer: str) -> list[Any]:
    """A direct turn that thinks first: reasoning tokens, then answer tokens."""
    events = direct_events(answer)
    thinking = [ThinkingToken(node="synthesize", text=w + " ") for w in thought.split()]
    return events[:3] + thinking + events[3:]


def tool_events(tool: str = "check_drug_safety", label: str = "Drug Safety Report") -> list[Any]:
    return [
        NodeStarted(node="tool_execute", label="Consulting a source"),
        ToolCalled(
            node="tool_execute", tool=tool, tool_label=label, args={"drug_name": "dofetilide"}
        ),
        ToolFinished(node="tool_execute", tool=tool, tool_label=label, ok=True, duration_s=0.3),
        NodeFinished(node="tool_execute", duration_s=0.4),
        ResultClassified(node="result_classify", quality="success_rich"),
    ]


PRESCRIPTION = ApprovalRequest(
    tool="prescribe_medication",
    tool_label="Prescription",
    args={
        "patient_id": "p1",
        "medication_name": "metformin",
        "dosage": "500 mg",
        "frequency": "twice daily",
    },
    summary="Metformin 500 mg twice daily for Jane Doe",
    idempotency_key="k1",
)


@dataclass
class FakeAgent:
    events: list[Any] = field(
        default_factory=lambda: direct_events("Hypertension is high blood pressure [1].")
    )
    result: TurnResult = field(
        default_factory=lambda: TurnResult(
            final_response="Hypertension is high blood pressure [1].",
            sources_used=[
                Source(title="Guideline", url="https://example.org/g", kind="literature")
            ],
            follow_up_questions=["What causes it?", "How is it treated?", "What are the risks?"],
        )
    )
    fail_with: Exception | None = None
    delay_s: float = 0.0
    gate: threading.Event | None = None
    """When set up, the stream waits before event ``gate_at`` until a test sets the event."""
    gate_at: int = 0
    calls: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[ApprovalDecision] = field(default_factory=list)
    resume_thinking: list[tuple[bool | None, int | None]] = field(default_factory=list)

    async def run_turn(
        self,
        thread_id: str,
        message: str,
        *,
        image=None,
        patient_id=None,
        thinking=None,
        thinking_budget=None,
        demographics=None,
        show_unverified=False,
    ) -> AsyncIterator[Any]:
        self.calls.append(
            {
                "thread": thread_id,
                "message": message,
                "image": image,
                "patient": patient_id,
                "thinking": thinking,
                "thinking_budget": thinking_budget,
                "show_unverified": show_unverified,
            }
        )
        for n, ev in enumerate(self.events):
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            while n == self.gate_at and self.gate is not None and not self.gate.is_set():
                await asyncio.sleep(0.05)
            yield ev
        if self.fail_with is not None:
            raise self.fail_with
        yield self.result

    async def resume(
        self, thread_id: str, decision: ApprovalDecision, *, thinking=None, thinking_budget=None
    ) -> AsyncIterator[Any]:
        self.decisions.append(decision)
        self.resume_thinking.append((thinking, thinking_budget))
        await asyncio.sleep(self.delay_s)
        if decision.action == "reject":
            yield TurnResult(final_response="Understood — nothing was written.")
            return
        yield TurnResult(
            final_response="The prescription was saved.",
            tool_calls=[ToolCallRecord(tool="prescribe_medication", tool_label="Prescription")],
        )


def panel_view() -> PanelView:
    """Components of the kinds the page redraws, for calling ``Handlers.panels`` directly."""
    with gr.Blocks():
        return PanelView(
            patient_banner=gr.Markdown(),
            attachment_note=gr.Markdown(),
            image_picker=gr.Dropdown(),
            chart=gr.Markdown(),
            follow_row=gr.Row(),
            follow_ups=tuple(gr.Button() for _ in range(FOLLOW_UPS)),
            card=gr.Group(),
            card_text=gr.Markdown(),
            card_error=gr.Markdown(),
            editor=gr.Column(),
            card_key=gr.Textbox(),
        )

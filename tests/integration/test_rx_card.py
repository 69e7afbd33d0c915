"""A prescription's approval card, end to end on the real tools and the embedded FHIR server
over HTTP (the model is scripted: this is about what code decides): the chart check's
findings on the card and in the timeline, a new card after a rejection, and the patient
panel showing the saved order at once."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from docgemma.agent.outcome import ApprovalDecision
from docgemma.config import Settings
from docgemma.ehr.client import EHRClient
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.args import PrescribeMedicationArgs
from docgemma.ui.card_review import NOT_GIVEN
from docgemma.ui.patient_panel import PatientPanel
from docgemma.ui.patients import EHRPatients
from docgemma.ui.render import approval_card
from docgemma.ui.session import SessionState
from docgemma.ui.turns import decide, user_turn
from docgemma.ui.uploads import Submission

from .conftest import resume, search, turn

PATIENT = "mgarcia-001"
"""Synthetic patient on warfarin, allergic to sulfamethoxazole."""
ORDER = "Start amoxicillin 500 mg three times a day for 7 days for her"
ARGS = {
    "patient_id": PATIENT,
    "medication_name": "amoxicillin",
    "dosage": "500 mg",
    "frequency": "three times a day",
    "duration": "7 days",
}
PROPOSED = {**ARGS, "frequency": "three times daily"}
"""What the card proposes: the frequency in the record's own vocabulary."""


def intent(kind: str = "TOOL_NEEDED") -> dict[str, Any]:
    return {"intent": kind, "task_summary": "order", "suggested_tool": None}


def proposal(tool: str = "prescribe_medication", kind: str = "TOOL_NEEDED") -> list[Any]:
    return [intent(kind), {"tool_name": tool}, ARGS]


@pytest.fixture(autouse=True)
def scripted(settings: Settings) -> None:
    """Route with the (scripted) model only, as for any non-embedded backend."""
    settings.backend = "scripted"


async def test_the_card_carries_the_chart_check(app_agent) -> None:
    async with app_agent(ScriptedBackend(proposal())) as agent:
        events, result = await turn(agent, ORDER, patient_id=PATIENT)
    pending = result.pending_approval
    assert pending is not None and pending.args == PROPOSED
    review = pending.review
    assert review is not None and "Maria Garcia (mgarcia-001)" in review.checked
    [inr] = review.warnings
    assert inr.kind == "interaction" and "warfarin" in inr.title and "check the INR" in inr.title
    steps = {e.title: e for e in result.reasoning_timeline}
    check = steps["Checked the prescription against the chart"]
    assert check.status == "error" and "check the INR" in check.detail
    streamed = [e for e in events if getattr(e, "decision", None) == "chart_check"]
    assert streamed and "check the INR" in streamed[0].reason

    card = approval_card(pending, pending.args, False, fields=PrescribeMedicationArgs.model_fields)
    assert "Warning" in card and "check the INR" in card
    assert f"| Route | {NOT_GIVEN} |" in card  # missing, and shown as missing
    assert "| Duration | 7 days |" in card


async def test_after_a_rejection_asking_again_gives_a_new_card(app_agent) -> None:
    """The second time, the model calls the order a question and picks the drug label:
    code proposes the prescription the message orders, with its own check."""
    replies = [*proposal(), *proposal("check_drug_safety", kind="DIRECT")]
    async with app_agent(ScriptedBackend(replies)) as agent:
        _, first = await turn(agent, ORDER, patient_id=PATIENT)
        _, declined = await resume(agent, ApprovalDecision(action="reject", reason="check INR"))
        _, again = await turn(agent, ORDER)
    assert declined.pending_approval is None
    assert declined.final_response.startswith("Not saved: you declined the proposed Prescription")
    assert "Reason given: check INR." in declined.final_response
    second = again.pending_approval
    assert second is not None and second.args == PROPOSED
    assert second.idempotency_key != first.pending_approval.idempotency_key
    assert second.review is not None and second.review.warnings
    assert "Please review and approve" in again.final_response
    assert not again.tool_calls  # the label lookup was never run


async def test_after_approval_the_patient_panel_shows_the_new_order(
    app_agent, fhir_url: str, settings: Settings, fhir
) -> None:
    ticks = itertools.count()
    session = SessionState(patient_id=PATIENT, shown_patient_id=PATIENT)
    after = [{"quality": "success_rich", "brief_summary": "order created"}]
    ehr = EHRClient.from_settings(settings, fhir_url)
    panel = PatientPanel(settings, EHRPatients(ehr), settings.data_dir)
    async with app_agent(ScriptedBackend([*proposal(), *after])) as agent:
        async for _ in user_turn(session, agent, Submission(ORDER), lambda: float(next(ticks))):
            pass
        assert session.approval.open and session.approval.request.review is not None
        assert await panel.adopted(session) is None  # the panel already shows her chart
        async for _ in decide(session, agent, "approve", clock=lambda: float(next(ticks))):
            pass
    [order] = [
        r
        for r in search(fhir, "MedicationRequest", patient=PATIENT)
        if "amoxicillin" in str(r["medicationCodeableConcept"])
    ]
    assert order["dosageInstruction"][0]["text"] == "500 mg three times daily for 7 days"
    shown = await panel.adopted(session)  # the redraw after the decision
    assert shown is not None
    chart, _picker = shown
    assert "amoxicillin 500 mg three times daily for 7 days" in chart

"""A prescription corrected after it was approved, end to end on the real tools and the
embedded FHIR server over HTTP (the model is scripted: this is about what code decides):
the correction's card is code's, names the entry it replaces, and once approved the
record holds the corrected order and the earlier one marked entered in error."""

from __future__ import annotations

from typing import Any

import pytest

from docgemma.agent.outcome import ApprovalDecision
from docgemma.config import Settings
from docgemma.llm.scripted import ScriptedBackend

from .conftest import resume, search, turn

PATIENT = "mgarcia-001"
ARGS = {
    "patient_id": PATIENT,
    "medication_name": "atorvastatin",
    "dosage": "40 mg",
    "frequency": "once daily",
}
SAVED = [{"quality": "success_rich", "brief_summary": "saved"}]


@pytest.fixture(autouse=True)
def scripted(settings: Settings) -> None:
    settings.backend = "scripted"


def proposal() -> list[Any]:
    intent = {"intent": "TOOL_NEEDED", "task_summary": "order", "suggested_tool": None}
    return [intent, {"tool_name": "prescribe_medication"}, ARGS]


def atorvastatin_orders(fhir) -> dict[str, str]:
    """Each atorvastatin order's dosage text and status."""
    return {
        r["dosageInstruction"][0]["text"]: r["status"]
        for r in search(fhir, "MedicationRequest", patient=PATIENT)
        if "atorvastatin" in str(r.get("medicationCodeableConcept")).lower()
    }


async def test_an_approved_order_corrected_is_replaced_in_the_record(app_agent, fhir) -> None:
    async with app_agent(ScriptedBackend([*proposal(), *SAVED, *SAVED])) as agent:
        _, first = await turn(
            agent, "Prescribe atorvastatin 40 mg once daily for her", patient_id=PATIENT
        )
        assert first.pending_approval is not None
        await resume(agent, ApprovalDecision(action="approve", approved_by="dr.okafor"))
        assert atorvastatin_orders(fhir) == {"40 mg once daily": "active"}

        _, corrected = await turn(agent, "Correction: make that 20 mg nightly.")
        card = corrected.pending_approval
        assert card is not None and not corrected.model_calls  # code's card
        assert card.args == {**ARGS, "dosage": "20 mg", "frequency": "at bedtime"}
        assert card.replaces and "atorvastatin, 40 mg, once daily" in card.replaces
        assert not any(f.kind == "duplicate" for f in card.review.findings)  # its own entry
        _, saved = await resume(agent, ApprovalDecision(action="approve", approved_by="dr.okafor"))
    assert "The earlier atorvastatin 40 mg once daily is marked entered in error" in (
        saved.final_response
    )
    assert atorvastatin_orders(fhir) == {
        "40 mg once daily": "entered-in-error",
        "20 mg at bedtime": "active",
    }

"""A rejected note asked for again with an addition, end to end on the real tools and the
embedded FHIR server over HTTP (the model is scripted: this is about what code decides):
the new card holds the note and the clinician's added words, no model call makes it, and
the approved note is saved as shown."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from docgemma.agent.outcome import ApprovalDecision
from docgemma.config import Settings
from docgemma.llm.scripted import ScriptedBackend

from .conftest import resume, search, turn

PATIENT = "mgarcia-001"
DICTATED = "Switching metformin to empagliflozin 10 mg daily for declining renal function"
ARGS = {"patient_id": PATIENT, "note_type": "progress", "note_text": DICTATED}
ADDED = "Recheck U&E in one week."


@pytest.fixture(autouse=True)
def scripted(settings: Settings) -> None:
    settings.backend = "scripted"


def proposal() -> list[Any]:
    intent = {"intent": "TOOL_NEEDED", "task_summary": "note", "suggested_tool": None}
    return [intent, {"tool_name": "save_clinical_note"}, ARGS]


def saved_notes(fhir) -> list[str]:
    return [
        base64.b64decode(c["attachment"]["data"]).decode()
        for r in search(fhir, "DocumentReference", patient=PATIENT)
        for c in r.get("content", [])
        if c.get("attachment", {}).get("data")
    ]


async def test_a_rejected_note_comes_back_with_the_addition(app_agent, fhir) -> None:
    after = [{"quality": "success_rich", "brief_summary": "note saved"}]
    async with app_agent(ScriptedBackend([*proposal(), *after])) as agent:
        _, first = await turn(
            agent, f"Save a progress note for her: {DICTATED}", patient_id=PATIENT
        )
        assert first.pending_approval is not None
        await resume(agent, ApprovalDecision(action="reject", reason="add the follow-up"))
        _, again = await turn(agent, f"Save it again with '{ADDED}' added")
        card = again.pending_approval
        assert card is not None
        assert card.args == {**ARGS, "note_text": f"{DICTATED}. {ADDED}"}
        assert card.idempotency_key != first.pending_approval.idempotency_key
        assert not again.model_calls  # the card is code's: the scripted replies are untouched
        steps = [e.title for e in again.reasoning_timeline]
        assert "Proposing the declined write again" in steps
        _, saved = await resume(agent, ApprovalDecision(action="approve"))
    assert saved.tool_calls[-1].error_type is None
    assert f"{DICTATED}. {ADDED}" in saved_notes(fhir)


async def test_a_new_dictation_after_a_rejection_is_a_new_note(app_agent) -> None:
    """Only a reply that refers to the declined card changes it; a new note is the model's
    proposal, as any dictation is."""
    other = {**ARGS, "note_text": "Wound healing well"}
    intent = {"intent": "TOOL_NEEDED", "task_summary": "note", "suggested_tool": None}
    replies = [*proposal(), intent, {"tool_name": "save_clinical_note"}, other]
    async with app_agent(ScriptedBackend(replies)) as agent:
        await turn(agent, f"Save a progress note for her: {DICTATED}", patient_id=PATIENT)
        await resume(agent, ApprovalDecision(action="reject"))
        _, fresh = await turn(agent, "Save a progress note: Wound healing well")
    assert fresh.pending_approval is not None
    assert fresh.pending_approval.args["note_text"] == "Wound healing well"

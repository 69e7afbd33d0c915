"""No EHR write without the clinician, end to end: the graph's approval gate, the real
prescription tool and the embedded FHIR server. The model is scripted (this is about
the write path) except in one real-model approval. Writes are counted over HTTP."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from docgemma.agent.approval import idempotency_key
from docgemma.agent.outcome import NOTHING_PENDING, ApprovalDecision, TurnResult
from docgemma.config import Settings
from docgemma.ehr.builders import session_reference
from docgemma.ehr.codes import IDEMPOTENCY_SYSTEM, SESSION_SYSTEM
from docgemma.llm.scripted import ScriptedBackend

from .conftest import RecordingLLM, assert_clean_answer, resume, search, turn, usage

PATIENT = "abc-123"
PRESCRIBE = f"Prescribe metformin 500mg twice daily for {PATIENT}"
ARGS = {
    "patient_id": PATIENT,
    "medication_name": "metformin",
    "dosage": "500 mg",
    "frequency": "twice daily",
}


def proposal() -> list[Any]:
    return [
        {"intent": "TOOL_NEEDED", "task_summary": "prescribe", "suggested_tool": None},
        {"tool_name": "prescribe_medication"},
        ARGS,
    ]


def after_approval() -> list[Any]:
    """The result classification; the confirmation is the tool's own, no model writes it."""
    return [{"quality": "success_rich", "brief_summary": "order created"}]


@pytest.fixture(autouse=True)
def scripted(settings: Settings) -> None:
    """Route with the (scripted) model only, as for any non-embedded backend."""
    settings.backend = "scripted"


class Writes:
    """The MedicationRequests and Provenances the turn added for the patient, seen over HTTP."""

    def __init__(self, fhir: httpx.Client) -> None:
        self.fhir = fhir
        self.before = {r["id"] for r in self._requests()}
        self.provenance_before = {r["id"] for r in search(fhir, "Provenance", patient=PATIENT)}

    def _requests(self) -> list[dict[str, Any]]:
        return search(self.fhir, "MedicationRequest", patient=PATIENT)

    def new_requests(self) -> list[dict[str, Any]]:
        return [r for r in self._requests() if r["id"] not in self.before]

    def new_provenance(self) -> list[dict[str, Any]]:
        found = search(self.fhir, "Provenance", patient=PATIENT)
        return [r for r in found if r["id"] not in self.provenance_before]


@pytest.fixture
def writes(fhir: httpx.Client) -> Writes:
    return Writes(fhir)


async def propose(agent, thread: str = "t") -> TurnResult:
    _, result = await turn(agent, PRESCRIBE, thread)
    assert result.pending_approval is not None and result.pending_approval.args == ARGS
    return result


def the_one_write(writes: Writes, dose: str, approver: str, key: str, thread: str) -> None:
    """Exactly one order with these values, and exactly one Provenance naming the approver."""
    [order] = writes.new_requests()
    assert "metformin" in json.dumps(order["medicationCodeableConcept"]).lower()
    assert order["dosageInstruction"][0]["text"] == f"{dose} twice daily"
    assert order["subject"]["reference"] == f"Patient/{PATIENT}"
    assert {"system": IDEMPOTENCY_SYSTEM, "value": key} in order["identifier"]
    [provenance] = writes.new_provenance()
    assert {"reference": f"MedicationRequest/{order['id']}"} in provenance["target"]
    verifier = [a for a in provenance["agent"] if a["type"]["coding"][0]["code"] == "verifier"]
    assert [a["who"]["display"] for a in verifier] == [approver]
    identifiers = [e["what"]["identifier"] for e in provenance["entity"]]
    assert {"system": SESSION_SYSTEM, "value": session_reference(thread)} in identifiers
    assert {"system": IDEMPOTENCY_SYSTEM, "value": key} in identifiers


async def test_approve_writes_one_order_and_its_provenance(app_agent, writes) -> None:
    async with app_agent(ScriptedBackend([*proposal(), *after_approval()])) as agent:
        pending = (await propose(agent)).pending_approval
        assert writes.new_requests() == []  # nothing before the clinician says so
        _, result = await resume(agent, ApprovalDecision(action="approve", approved_by="dr.lee"))
    the_one_write(writes, "500 mg", "dr.lee", pending.idempotency_key, "t")
    assert result.pending_approval is None and result.tool_calls[-1].error_type is None
    assert result.final_response == (
        "Prescription saved to the record of John Smith (ID abc-123): "
        "metformin 500 mg twice daily. Approved by dr.lee."
    )


async def test_edit_then_approve_writes_the_edited_dose(app_agent, writes) -> None:
    async with app_agent(ScriptedBackend([*proposal(), *after_approval()])) as agent:
        await propose(agent)
        _, result = await resume(
            agent,
            ApprovalDecision(action="edit", args={"dosage": "1000 mg"}, approved_by="dr.lee"),
        )
    edited = {**ARGS, "dosage": "1000 mg"}
    the_one_write(
        writes, "1000 mg", "dr.lee", idempotency_key("t", 1, "prescribe_medication", edited), "t"
    )
    assert result.tool_calls[-1].args == {**ARGS, "dosage": "1000 mg"}
    # the answer states the edited dose, not the question's (a model may write the question's)
    assert "metformin 1000 mg twice daily" in result.final_response
    assert "500 mg" not in result.final_response


async def test_reject_writes_nothing_and_says_so(app_agent, writes) -> None:
    replies = [*proposal(), "Understood."]
    async with app_agent(ScriptedBackend(replies)) as agent:
        await propose(agent)
        _, result = await resume(agent, ApprovalDecision(action="reject", reason="wrong dose"))
    assert writes.new_requests() == [] and writes.new_provenance() == []
    assert result.tool_calls[-1].error_type == "rejected_by_clinician"
    assert "declined the proposed Prescription" in result.final_response


async def test_double_approval_in_a_row_writes_once(app_agent, writes) -> None:
    async with app_agent(ScriptedBackend([*proposal(), *after_approval()])) as agent:
        pending = (await propose(agent)).pending_approval
        _, first = await resume(agent, ApprovalDecision(action="approve", approved_by="dr.lee"))
        _, second = await resume(agent, ApprovalDecision(action="approve", approved_by="dr.lee"))
    the_one_write(writes, "500 mg", "dr.lee", pending.idempotency_key, "t")
    assert second.final_response == NOTHING_PENDING


async def test_concurrent_approvals_write_once(app_agent, writes) -> None:
    async with app_agent(ScriptedBackend([*proposal(), *after_approval()])) as agent:
        pending = (await propose(agent)).pending_approval
        approve = ApprovalDecision(action="approve", approved_by="dr.lee")
        results = await asyncio.gather(resume(agent, approve), resume(agent, approve))
    the_one_write(writes, "500 mg", "dr.lee", pending.idempotency_key, "t")
    assert sorted(r.final_response == NOTHING_PENDING for _, r in results) == [False, True]


async def test_two_app_instances_approving_at_once_write_once(app_agent, writes) -> None:
    """Two app processes on one conversation store both see the pending write; the FHIR
    conditional create on the approval's idempotency key keeps it to one order."""
    async with app_agent(ScriptedBackend(proposal())) as first:
        pending = (await propose(first, "shared")).pending_approval
    approve = ApprovalDecision(action="approve", approved_by="dr.lee")
    async with (
        app_agent(ScriptedBackend(after_approval())) as a,
        app_agent(ScriptedBackend(after_approval())) as b,
    ):
        await asyncio.gather(resume(a, approve, "shared"), resume(b, approve, "shared"))
    the_one_write(writes, "500 mg", "dr.lee", pending.idempotency_key, "shared")


async def test_pending_write_survives_a_restart(app_agent, writes) -> None:
    async with app_agent(ScriptedBackend(proposal())) as before_restart:
        pending = (await propose(before_restart, "clinic-1")).pending_approval
    assert writes.new_requests() == []
    async with app_agent(ScriptedBackend(after_approval())) as after_restart:
        assert (await after_restart.pending_approval("clinic-1")) == pending
        _, result = await resume(
            after_restart, ApprovalDecision(action="approve", approved_by="dr.ng"), "clinic-1"
        )
    the_one_write(writes, "500 mg", "dr.ng", pending.idempotency_key, "clinic-1")
    assert result.pending_approval is None


@pytest.mark.real_model
async def test_real_model_proposal_approved_end_to_end(
    app_agent, real_llm, settings: Settings, writes
) -> None:
    settings.backend = "llamacpp"  # default routing for the embedded model
    async with app_agent(RecordingLLM(real_llm)) as agent:
        _, proposed = await turn(
            agent, "Prescribe metformin 500 mg twice daily for abc-123", "real"
        )
        pending = proposed.pending_approval
        assert pending is not None and pending.args["patient_id"] == PATIENT
        assert writes.new_requests() == []
        events, result = await resume(
            agent, ApprovalDecision(action="approve", approved_by="dr.real"), "real"
        )
    [order] = writes.new_requests()
    args = pending.args
    assert order["dosageInstruction"][0]["text"] == f"{args['dosage']} {args['frequency']}"
    assert args["medication_name"].lower() in json.dumps(order["medicationCodeableConcept"]).lower()
    assert {"system": IDEMPOTENCY_SYSTEM, "value": pending.idempotency_key} in order["identifier"]
    [provenance] = writes.new_provenance()
    assert "dr.real" in [a["who"]["display"] for a in provenance["agent"]]
    assert_clean_answer(result)
    assert not result.fallback_used and result.pending_approval is None
    assert [c.tool for c in result.tool_calls] == ["prescribe_medication"]
    assert result.tool_calls[0].error_type is None
    assert result.model_calls - proposed.model_calls == len(usage(events))

"""No EHR write without the clinician: approve, edit, reject, double approval, restart."""

from __future__ import annotations

import pytest

from docgemma.agent.approval import idempotency_key
from docgemma.agent.outcome import NOTHING_PENDING, ApprovalDecision, TurnResult
from docgemma.agent.service import STALE_DECISION, Agent, sqlite_checkpointer
from docgemma.events import ApprovalRequested, ToolCalled
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.base import ToolErrorType, ToolOutcome

from .conftest import intent, quality, retry, run, select

PRESCRIBE = "Prescribe metformin 500mg twice daily for abc-123"
SAVED = "Order created: metformin 500 mg."
"""The fake prescription tool's confirmation, which the answer states as it is."""
ARGS = {
    "patient_id": "abc-123",
    "medication_name": "metformin",
    "dosage": "500 mg",
    "frequency": "twice daily",
}


def proposal_replies() -> list:
    return [intent(tool="prescribe_medication"), select("prescribe_medication"), ARGS]


async def resume(
    agent: Agent, decision: ApprovalDecision, thread: str = "t"
) -> tuple[list, TurnResult]:
    items = [item async for item in agent.resume(thread, decision)]
    return items[:-1], items[-1]


async def propose(agent: Agent, tools, thread: str = "t") -> TurnResult:
    events, result = await run(agent, PRESCRIBE, thread)
    assert tools.calls_to("prescribe_medication") == []  # nothing written yet
    assert result.pending_approval is not None and result.model_calls == 3
    assert any(isinstance(e, ApprovalRequested) for e in events)
    assert not any(isinstance(e, ToolCalled) for e in events)
    return result


async def test_approve_writes_once_with_approver_and_idempotency_key(make_agent, tools) -> None:
    llm = ScriptedBackend([*proposal_replies(), quality("success_rich")])
    agent = make_agent(llm)
    pending = (await propose(agent, tools)).pending_approval
    assert (
        pending.args == ARGS
        and "metformin, 500 mg, twice daily for patient abc-123" in pending.summary
    )
    assert pending.idempotency_key == idempotency_key("t", 1, "prescribe_medication", ARGS)
    _, result = await resume(agent, ApprovalDecision(action="approve", approved_by="dr.lee"))
    ((args, ctx),) = tools.calls_to("prescribe_medication")
    assert (
        args == ARGS
        and ctx.approved_by == "dr.lee"
        and ctx.idempotency_key == pending.idempotency_key
    )
    assert result.pending_approval is None and result.final_response == SAVED
    assert result.model_calls == 4  # same turn: 3 before the pause + classification; the
    # confirmation is the tool's own, so the saved values are stated exactly


async def test_a_confirmed_write_is_stated_with_high_confidence(make_agent, tools) -> None:
    """Seen in the app: a saved prescription, confirmed from the record by code, showed
    a medium confidence glossed as the model's own knowledge."""
    agent = make_agent(ScriptedBackend([*proposal_replies(), quality("success_partial")]))
    await propose(agent, tools)
    _, result = await resume(agent, ApprovalDecision(action="approve", approved_by="dr.lee"))
    assert result.final_response == SAVED and result.confidence_level == "high"
    assert result.confidence_reason == "the sources' own words, written by code"


@pytest.mark.parametrize(
    "proposed",
    [
        {**ARGS, "dosage": "500 mg twice daily"},
        # the model's frequency is replaced by the one the message states, and the dose
        # that then repeats it is cut: the card shows the dose as it will be written
        {**ARGS, "dosage": "500 mg twice daily", "frequency": "once daily"},
    ],
)
async def test_a_dose_repeating_the_frequency_is_proposed_and_saved_once(
    make_agent, tools, proposed
) -> None:
    """Seen on the approval card: "500 mg twice daily twice daily" would have been saved."""
    replies = [intent(tool="prescribe_medication"), select("prescribe_medication"), proposed]
    agent = make_agent(ScriptedBackend([*replies, quality("success_rich")]))
    _, result = await run(agent, PRESCRIBE)
    assert result.pending_approval is not None and result.pending_approval.args == ARGS
    await resume(agent, ApprovalDecision(action="approve", approved_by="dr.lee"))
    ((args, _),) = tools.calls_to("prescribe_medication")
    assert args == ARGS


async def test_a_decision_for_another_proposal_is_refused(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [*proposal_replies(), quality("success_rich"), "Metformin 500 mg ordered."]
    )
    agent = make_agent(llm)
    pending = (await propose(agent, tools)).pending_approval
    stale = ApprovalDecision(action="approve", idempotency_key="an-earlier-proposal")
    _, result = await resume(agent, stale)
    assert tools.calls_to("prescribe_medication") == []
    assert result.final_response == STALE_DECISION.format(summary=pending.summary)
    assert result.pending_approval == pending  # still waiting for a decision on it
    signed = ApprovalDecision(action="approve", idempotency_key=pending.idempotency_key)
    await resume(agent, signed)
    assert len(tools.calls_to("prescribe_medication")) == 1


async def test_edit_then_approve_writes_the_edited_arguments(make_agent, tools) -> None:
    llm = ScriptedBackend([*proposal_replies(), quality("success_rich"), "Ordered 1000 mg."])
    agent = make_agent(llm)
    await propose(agent, tools)
    await resume(agent, ApprovalDecision(action="edit", args={"dosage": "1000 mg"}))
    ((args, ctx),) = tools.calls_to("prescribe_medication")
    assert args == {**ARGS, "dosage": "1000 mg"}
    assert ctx.idempotency_key == idempotency_key("t", 1, "prescribe_medication", args)


async def test_an_edit_repeating_the_frequency_in_the_dose_is_saved_once(make_agent, tools) -> None:
    agent = make_agent(ScriptedBackend([*proposal_replies(), quality("success_rich")]))
    await propose(agent, tools)
    edit = {"dosage": "1000 mg twice daily"}
    await resume(agent, ApprovalDecision(action="edit", args=edit, approved_by="dr.lee"))
    ((args, ctx),) = tools.calls_to("prescribe_medication")
    assert args["dosage"] == "1000 mg"
    assert ctx.idempotency_key == idempotency_key("t", 1, "prescribe_medication", args)


async def test_invalid_edit_writes_nothing_and_asks(make_agent, tools) -> None:
    agent = make_agent(ScriptedBackend(proposal_replies()))
    await propose(agent, tools)
    _, result = await resume(agent, ApprovalDecision(action="edit", args={"dosage": ""}))
    assert tools.calls_to("prescribe_medication") == [] and result.clarification_requested
    assert "dosage" in result.final_response


async def test_reject_writes_nothing_and_says_so(make_agent, tools) -> None:
    """The rejection is answered by code: a model had written "No prescription prescribed."."""
    agent = make_agent(ScriptedBackend(proposal_replies()))
    pending = (await propose(agent, tools)).pending_approval
    _, result = await resume(agent, ApprovalDecision(action="reject", reason="wrong dose"))
    assert tools.calls_to("prescribe_medication") == []
    assert result.tool_calls[-1].error_type == "rejected_by_clinician"
    assert result.final_response == (
        f"Not saved: you declined the proposed {pending.summary}. Nothing was written to the "
        'record. Reason given: wrong dose. To change it, say what to change or add ("save it '
        'again with … added"), and a new proposal will be shown for your approval.'
    )
    assert result.model_calls == 3  # no model call after the decision


async def test_double_approval_writes_exactly_once(make_agent, tools) -> None:
    llm = ScriptedBackend([*proposal_replies(), quality("success_rich")])
    agent = make_agent(llm)
    await propose(agent, tools)
    _, first = await resume(agent, ApprovalDecision(action="approve"))
    _, second = await resume(agent, ApprovalDecision(action="approve"))
    assert len(tools.calls_to("prescribe_medication")) == 1
    assert first.final_response == SAVED and second.final_response == NOTHING_PENDING


async def test_identical_request_in_a_later_turn_is_asked_and_written_again(
    make_agent, tools
) -> None:
    """A deliberate second identical order is a new proposal, not a silent "already saved"."""
    llm = ScriptedBackend(
        [
            *proposal_replies(),
            quality("success_rich"),
            *proposal_replies(),
            quality("success_rich"),
        ]
    )
    agent = make_agent(llm)
    first = (await propose(agent, tools)).pending_approval
    await resume(agent, ApprovalDecision(action="approve"))
    _, again = await run(agent, PRESCRIBE)
    second = again.pending_approval
    assert second is not None and len(tools.calls_to("prescribe_medication")) == 1
    assert second.idempotency_key != first.idempotency_key
    assert second.idempotency_key == idempotency_key("t", 2, "prescribe_medication", ARGS)
    _, done = await resume(agent, ApprovalDecision(action="approve"))
    calls = tools.calls_to("prescribe_medication")
    assert [ctx.idempotency_key for _, ctx in calls] == [
        first.idempotency_key,
        second.idempotency_key,
    ]
    assert done.final_response == SAVED


@pytest.mark.parametrize("action", ["approve", "reject"])
async def test_pending_approval_survives_a_restart(settings, tools, action) -> None:
    first = Agent.create(
        settings,
        ScriptedBackend(proposal_replies()),
        tools.registry(),
        classifiers={},
        checkpointer=await sqlite_checkpointer(settings),
    )
    await propose(first, tools, thread="clinic-1")
    await first.aclose()
    replies = [quality("success_rich")] if action == "approve" else ["Not ordered."]
    second = Agent.create(
        settings,
        ScriptedBackend(replies),
        tools.registry(),
        classifiers={},
        checkpointer=await sqlite_checkpointer(settings),
    )
    assert (await second.pending_approval("clinic-1")).args == ARGS
    _, result = await resume(second, ApprovalDecision(action=action), thread="clinic-1")
    await second.aclose()
    assert len(tools.calls_to("prescribe_medication")) == (1 if action == "approve" else 0)
    assert result.pending_approval is None


async def test_write_to_an_unmentioned_patient_is_never_proposed(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="prescribe_medication"),
            select("prescribe_medication"),
            {**ARGS, "patient_id": "zzz-999"},
        ]
    )
    _, result = await run(make_agent(llm), "Prescribe metformin 500mg twice daily")
    assert result.pending_approval is None and tools.calls_to("prescribe_medication") == []
    assert result.final_response == "I need a patient ID to proceed. Could you provide one?"


async def test_failed_write_is_never_reported_as_saved_on_retry(make_agent, tools) -> None:
    tools.queue(
        "prescribe_medication",
        ToolOutcome(error_type=ToolErrorType.SERVER_ERROR, error_detail="HTTP 500"),
    )
    llm = ScriptedBackend(
        [
            *proposal_replies(),
            quality("error_retryable"),
            retry("retry_same"),
            quality("success_rich"),
        ]
    )
    agent = make_agent(llm)
    await propose(agent, tools)
    _, after_failure = await resume(agent, ApprovalDecision(action="approve"))
    assert len(tools.calls_to("prescribe_medication")) == 1
    assert after_failure.pending_approval is not None  # the retry asks the clinician again
    _, done = await resume(agent, ApprovalDecision(action="approve"))
    calls = tools.calls_to("prescribe_medication")
    assert len(calls) == 2 and calls[0][1].idempotency_key == calls[1][1].idempotency_key
    assert done.pending_approval is None and done.final_response == SAVED


SAVED_ORDER = ToolOutcome(
    data={"reference": "MedicationRequest/rx-1", "created": True},
    formatted="Order created: metformin 500 mg.",
)


async def test_a_correction_after_approval_is_a_card_replacing_the_saved_entry(
    make_agent, tools
) -> None:
    """ "Make that …" after an approved order is a new card, made by code, replacing it."""
    tools.queue("prescribe_medication", SAVED_ORDER)
    llm = ScriptedBackend([*proposal_replies(), quality("success_rich"), quality("success_rich")])
    agent = make_agent(llm)
    await propose(agent, tools)
    await resume(agent, ApprovalDecision(action="approve", approved_by="dr.lee"))
    calls = len(llm.calls)
    _, corrected = await run(agent, "Correction: make that 1000 mg once daily.")
    card = corrected.pending_approval
    assert card is not None and len(tools.calls_to("prescribe_medication")) == 1
    assert card.args == {**ARGS, "dosage": "1000 mg", "frequency": "once daily"}
    assert card.replaces == "Prescription: metformin, 500 mg, twice daily for patient abc-123"
    assert len(llm.calls) == calls  # no model call chose or filled the new card
    _, done = await resume(agent, ApprovalDecision(action="approve", approved_by="dr.lee"))
    (_, first), (args, second) = tools.calls_to("prescribe_medication")
    assert first.replaces is None and second.replaces == "MedicationRequest/rx-1"
    assert args["dosage"] == "1000 mg" and done.pending_approval is None


@pytest.mark.parametrize(
    "message",
    [
        "Should I make it 1000 mg?",  # a question
        "Correction: make that 500 mg twice daily.",  # changes nothing
    ],
)
async def test_a_question_or_an_unchanged_correction_proposes_nothing(
    make_agent, tools, message: str
) -> None:
    tools.queue("prescribe_medication", SAVED_ORDER)
    llm = ScriptedBackend(
        [*proposal_replies(), quality("success_rich"), intent("DIRECT"), "An answer."]
    )
    agent = make_agent(llm)
    await propose(agent, tools)
    await resume(agent, ApprovalDecision(action="approve"))
    _, result = await run(agent, message)
    assert result.pending_approval is None
    assert len(tools.calls_to("prescribe_medication")) == 1

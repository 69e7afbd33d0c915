"""When a conversation is saved: once per turn, as the turn ends, pauses or fails."""

from __future__ import annotations

from docgemma.llm.scripted import ScriptedBackend

from .conftest import intent, prompts, quality, run, select


async def saved(agent, thread: str) -> int:
    config = {"configurable": {"thread_id": thread}}
    return len([c async for c in agent.checkpointer.alist(config)])


async def test_a_tool_turn_is_saved_once_not_after_every_step(make_agent) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "warfarin"},
            quality("success_rich"),
            "Warfarin carries a boxed warning for bleeding.",
        ]
    )
    agent = make_agent(llm)
    _, result = await run(agent, "Check FDA warnings for warfarin", thread="t")
    assert result.tool_calls  # seven steps ran: input, intent, select, execute, result, synthesis
    assert await saved(agent, "t") <= 2  # the input, and the turn's end
    llm.queue(intent("DIRECT"), "It is an anticoagulant.")
    await run(agent, "What kind of drug is it?", thread="t")
    assert "check fda warnings for warfarin" in prompts(llm)[-1].lower()  # the turn came back
    assert await saved(agent, "t") <= 4


async def test_a_paused_write_is_saved_and_resumes(make_agent) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="prescribe_medication"),
            select("prescribe_medication"),
            {
                "patient_id": "abc-123",
                "medication_name": "metformin",
                "dosage": "500 mg",
                "frequency": "twice daily",
            },
        ]
    )
    agent = make_agent(llm)
    _, paused = await run(agent, "Prescribe metformin 500 mg twice daily for abc-123", thread="w")
    pending = await agent.pending_approval("w")
    assert paused.pending_approval is not None and pending is not None
    assert pending.idempotency_key == paused.pending_approval.idempotency_key

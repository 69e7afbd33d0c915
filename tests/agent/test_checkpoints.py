"""When a conversation is saved and read: once per turn each, as the turn ends, pauses or fails.

A paused write surviving to its approval is tested in ``test_approval.py``.
"""

from __future__ import annotations

from docgemma.llm.scripted import ScriptedBackend

from .conftest import cited, intent, prompts, quality, run, select


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
            cited("The label warns of Torsade de Pointes.", "risk of Torsade de Pointes"),
        ]
    )
    agent = make_agent(llm)
    _, result = await run(agent, "Check FDA warnings for warfarin", thread="t")
    assert result.tool_calls  # six nodes ran: input, intent, select, execute, result, synthesis
    assert await saved(agent, "t") <= 2  # the input, and the turn's end
    llm.queue(intent("DIRECT"))
    await run(agent, "What kind of drug is it?", thread="t")
    assert "check fda warnings for warfarin" in prompts(llm)[-1].lower()  # the turn came back
    assert await saved(agent, "t") <= 4


async def test_a_turn_ends_without_reading_its_state_back(make_agent) -> None:
    """Its answer comes from the stream: the checkpoint is read for a waiting approval and by
    the graph as it starts, not a third time when the turn is over."""
    llm = ScriptedBackend([intent("DIRECT")])
    agent = make_agent(llm)
    reads = 0
    read = agent.checkpointer.aget_tuple

    async def counted(config):
        nonlocal reads
        reads += 1
        return await read(config)

    agent.checkpointer.aget_tuple = counted
    _, result = await run(agent, "What is hypertension?", thread="t")
    assert result.final_response.startswith("I found no source")
    assert reads == 2

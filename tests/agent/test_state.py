"""The state's per-turn fields: declared once (``PerTurn``), all reset, the rest kept."""

from __future__ import annotations

from typing import Any, get_type_hints

from langgraph.graph import END, START, StateGraph

from docgemma.agent.state import PER_TURN, AgentState, accumulate, turn_start
from docgemma.llm.scripted import ScriptedBackend

from .conftest import cited, intent, quality, run, select

CROSS_TURN = {
    "user_query",
    "turn_number",
    "conversation",
    "conversation_history",
    "extracted_entities",
    "has_image",
    "image_findings",
    "active_patient_id",
    "executed_writes",
    "unconfirmed_drugs",
    "unfound_patient",
    "patient_choices",
    "declined_write",
    "saved_write",
}
"""What a turn inherits from the one before (history, findings, patient, writes done)."""


def _stale(name: str) -> Any:
    """A value no turn starts with, of a shape the field's reducer accepts."""
    return [f"old {name}"] if name in _LISTS else f"old {name}"


_LISTS = {
    name
    for name, hint in get_type_hints(AgentState, include_extras=True).items()
    if accumulate in getattr(hint, "__metadata__", ())
}


def test_every_field_is_either_per_turn_or_carried_over() -> None:
    fields = set(get_type_hints(AgentState))
    assert set(PER_TURN) | CROSS_TURN == fields and not set(PER_TURN) & CROSS_TURN


async def test_starting_a_turn_resets_every_per_turn_field_and_keeps_the_rest() -> None:
    """Through LangGraph's own reducers, as the graph merges input_assembly's update."""
    builder = StateGraph(AgentState)
    builder.add_node("start", lambda _: turn_start())
    builder.add_edge(START, "start")
    builder.add_edge("start", END)
    stale = {name: _stale(name) for name in get_type_hints(AgentState)}

    after = await builder.compile().ainvoke(stale)

    for name in PER_TURN:
        expected = [] if name in _LISTS else PER_TURN[name]
        assert after[name] == expected, name
    assert {name: after[name] for name in CROSS_TURN} == {n: stale[n] for n in CROSS_TURN}


def test_start_values_are_fresh_copies() -> None:
    first = turn_start()
    first["retry_counts"]["check_drug_safety"] = 2
    assert turn_start()["retry_counts"] == {}


async def test_a_second_turn_starts_clean_but_remembers_the_first(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            cited("Dofetilide carries a boxed warning.", "Boxed warning: risk of Torsade"),
            intent("DIRECT", "definition"),
        ]
    )
    agent = make_agent(llm)
    await run(agent, "Check FDA warnings for dofetilide")
    _, second = await run(agent, "What is QT prolongation?")

    values = (await agent.graph.aget_state({"configurable": {"thread_id": "t"}})).values
    assert second.tool_calls == [] and values["tool_results"] == []
    assert values["current_tool"] is None and values["step_count"] == 0
    assert values["turn_number"] == 2
    said = [m["content"] for m in values["conversation"]]
    assert "Check FDA warnings for dofetilide" in said and "What is QT prolongation?" in said

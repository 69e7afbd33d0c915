"""Each step is recorded once: the streamed event is the state's record, and the turn's
decisions and reasoning timeline are read from it."""

from __future__ import annotations

from docgemma.agent.outcome import TimelineEntry
from docgemma.agent.tracing import reasoning_timeline, recorded
from docgemma.events import Decision, ResultClassified, StepNote, ToolFinished
from docgemma.llm.scripted import ScriptedBackend

from .conftest import cited, intent, quality, run, select

STEPS = (Decision, StepNote, ToolFinished, ResultClassified)


async def test_the_streamed_steps_are_the_recorded_ones_and_the_timeline_comes_from_them(
    make_agent, tools
) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety", summary="FDA warnings for dofetilide"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich", "boxed warning found"),
            cited("Dofetilide carries a boxed warning.", "Boxed warning: risk of Torsade"),
        ]
    )
    agent = make_agent(llm)
    events, result = await run(agent, "Check FDA warnings for dofetilide")
    values = (await agent.graph.aget_state({"configurable": {"thread_id": "t"}})).values

    streamed = [e.model_dump(mode="json") for e in events if isinstance(e, STEPS)]
    router = [s for s in streamed if s["node"] == "router"]  # routers write no state
    assert [s for s in streamed if s["node"] != "router"] == values["trace"] and router

    assert [(d.node, d.decision) for d in recorded(values, Decision)] == [
        ("intent_classify", "TOOL_NEEDED"),
        ("tool_select", "check_drug_safety"),
        ("result_classify", "success_rich"),
        ("synthesize", "answer"),
        ("synthesize", "high"),
    ]
    titles = [t.title for t in result.reasoning_timeline]
    label = tools.registry()["check_drug_safety"].label
    assert titles == [
        "Read the question",
        "Understood the request",
        f"Chose the {label}",
        f"Consulted the {label}",
        "Checked the result",
        "Wrote the answer",
        "Confidence: high",
    ]
    by_title = {t.title: t for t in result.reasoning_timeline}
    assert (
        by_title["Understood the request"].detail == "needs a lookup: FDA warnings for dofetilide"
    )
    assert by_title["Checked the result"].detail == "it answers the request: boxed warning found"
    assert by_title[f"Chose the {label}"].detail == "drug_name: dofetilide"
    consulted = by_title[f"Consulted the {label}"]
    assert consulted.status == "done" and consulted.duration_s is not None
    assert consulted.detail.startswith("Boxed warning: risk of Torsade de Pointes")
    assert len(consulted.detail) <= 200 and consulted.detail.endswith((" …", "."))  # no word cut


def test_timeline_entries_of_a_failed_tool_and_of_titled_and_untitled_decisions() -> None:
    trace = [
        Decision(node="tool_select", decision="search_patient", reason="chosen").model_dump(),
        Decision(
            node="error_handler", decision="ask_user", reason="Which patient?", title="Need more"
        ).model_dump(),
        ToolFinished(
            node="tool_execute",
            tool="search_patient",
            tool_label="Patient search",
            ok=False,
            error_type="timeout",
            duration_s=30.0,
            summary="The patient search did not answer in time.",
        ).model_dump(),
    ]
    assert reasoning_timeline({"trace": trace}) == [
        TimelineEntry(title="Need more", detail="Which patient?"),
        TimelineEntry(
            title="Consulted the Patient search",
            detail="The patient search did not answer in time.",
            status="error",
            duration_s=30.0,
        ),
    ]
    assert reasoning_timeline({}) == []

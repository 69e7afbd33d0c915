"""Bad and edge-case input at the service boundary: clear messages, no wasted model calls."""

from __future__ import annotations

import pytest

from docgemma.agent.outcome import EMPTY_MESSAGE_REPLY
from docgemma.llm.scripted import ScriptedBackend

from .conftest import NOTHING_CITED, cited, intent, prompts, run, select


@pytest.mark.parametrize("message", ["", "   ", "\n\t "])
async def test_empty_message_asks_for_a_question_without_a_model_call(make_agent, message) -> None:
    llm = ScriptedBackend()
    _, result = await run(make_agent(llm), message)
    assert (
        result.final_response == EMPTY_MESSAGE_REPLY and llm.calls == [] and result.model_calls == 0
    )


async def test_long_message_is_truncated_with_a_notice(make_agent, settings) -> None:
    settings.max_message_chars = 50
    llm = ScriptedBackend([intent("DIRECT"), "OK."])
    message = "What is hypertension? " + "x" * 200
    _, result = await run(make_agent(llm), message)
    assert any("longer than 50 characters" in n for n in result.notices)
    assert message[:50] in prompts(llm)[0] and message[:51] not in prompts(llm)[0]


async def test_unknown_patient_id_asks_the_user_without_a_model_call(make_agent) -> None:
    async def summary(pid: str) -> str | None:
        return "67F, CKD3, amlodipine 10 mg" if pid == "pat-001" else None

    llm = ScriptedBackend()
    _, result = await run(
        make_agent(llm, patient_summary=summary), "Is lisinopril ok?", patient_id="nope-404"
    )
    assert (
        result.clarification_requested and "nope-404" in result.final_response and llm.calls == []
    )

    llm = ScriptedBackend([intent("DIRECT", "renal function"), NOTHING_CITED])
    _, known = await run(
        make_agent(llm, patient_summary=summary),
        "Is her kidney disease advanced?",
        patient_id="pat-001",
    )
    assert not known.clarification_requested
    assert all(
        "67F, CKD3, amlodipine 10 mg" in p for p in prompts(llm)[1:]
    )  # pre-fetched context reaches synthesis


async def test_active_patient_is_a_valid_target_for_patient_tools(make_agent, tools) -> None:
    async def summary(pid: str) -> str | None:
        return "58M, T2DM"

    llm = ScriptedBackend(
        [
            intent(tool="get_patient_chart"),
            select("get_patient_chart"),
            {"patient_id": "pat-777"},
            {"quality": "success_rich", "brief_summary": "chart"},
            cited("The chart lists type 2 diabetes.", "Conditions: type 2 diabetes"),
        ]
    )
    _, result = await run(
        make_agent(llm, patient_summary=summary), "Show the current chart", patient_id="pat-777"
    )
    assert tools.calls_to("get_patient_chart")[0][0] == {"patient_id": "pat-777"}
    assert result.final_response == "The chart lists type 2 diabetes. [1]"


async def test_oversized_image_is_refused_with_a_notice(make_agent, settings) -> None:
    settings.max_image_bytes = 10
    llm = ScriptedBackend([intent("DIRECT"), "OK."], supports_vision=True)
    _, result = await run(make_agent(llm), "What do you see?", image=b"x" * 100)
    assert (
        any("larger than" in n for n in result.notices)
        and llm.calls[0].schema.__name__ == "IntentClassification"
    )


async def test_new_message_discards_an_unanswered_write_proposal(make_agent, tools) -> None:
    args = {"patient_id": "abc-123", "substance": "penicillin", "reaction": "rash"}
    llm = ScriptedBackend(
        [intent(tool="add_allergy"), select("add_allergy"), args, intent("DIRECT"), "Hi."]
    )
    agent = make_agent(llm)
    _, first = await run(agent, "Record a penicillin allergy (rash) for abc-123")
    assert first.pending_approval is not None
    _, second = await run(agent, "Hello")
    assert any("was not approved and was discarded" in n for n in second.notices)
    assert await agent.pending_approval("t") is None and tools.calls_to("add_allergy") == []


async def test_unreachable_record_is_a_notice_not_an_unknown_patient(make_agent) -> None:
    async def summary(pid: str) -> str | None:
        raise ConnectionError("EHR down")

    llm = ScriptedBackend([intent("DIRECT", "renal function")])
    _, result = await run(
        make_agent(llm, patient_summary=summary),
        "Is her kidney disease advanced?",
        patient_id="pat-001",
    )
    assert not result.clarification_requested and not result.fallback_used
    assert result.final_response.startswith("I found no source")  # no record to answer from
    assert any("pat-001 could not be loaded" in n for n in result.notices)


async def test_chart_summary_tells_unknown_from_unreachable() -> None:
    from docgemma.agent.factory import chart_summary
    from docgemma.ehr.client import EHRClient, EHRError

    summary = chart_summary(EHRClient("http://127.0.0.1:9", timeout_s=2))
    with pytest.raises(EHRError, match="Cannot reach"):
        await summary("pat-001")


async def test_cleared_patient_is_forgotten_and_none_keeps_the_selection(make_agent) -> None:
    async def summary(pid: str) -> str | None:
        return "58M, T2DM, metformin"

    llm = ScriptedBackend(
        [
            intent("DIRECT"),
            NOTHING_CITED,
            intent("DIRECT"),
            NOTHING_CITED,
            intent("DIRECT"),
            "Third.",
        ]
    )
    agent = make_agent(llm, patient_summary=summary)
    thread = "clear-patient"
    await agent.ask(thread, "Is her diabetes treated?", patient_id="abc-123")
    await agent.ask(thread, "And her blood pressure?")  # None: the selection stays
    await agent.ask(thread, "What is hypertension?", patient_id="", show_unverified=True)  # cleared
    written = [
        c.prompt for c in llm.calls if c.schema is None or "statements" in c.schema.model_fields
    ]
    assert ["58M, T2DM, metformin" in p for p in written] == [True, True, False]


async def test_closing_the_agent_releases_what_its_builder_registered(make_agent) -> None:
    released: list[str] = []

    async def release(name: str) -> None:
        released.append(name)

    agent = make_agent(ScriptedBackend())
    agent.on_close(lambda: release("model"))
    agent.on_close(lambda: release("http"))
    await agent.aclose()
    await agent.aclose()  # a second close releases nothing twice
    assert released == ["http", "model"]

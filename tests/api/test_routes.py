"""The ``/v1`` endpoints on a real server process: a direct question, a tool question, an
approval round trip, history, export, profiles, deletion. The EHR is a real FHIR server
(writes counted over HTTP); only the model is scripted."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from docgemma.agent.rules import ATTACH_IMAGE
from docgemma.agent.small_talk import REPLIES, SmallTalk
from docgemma.api.client import ApiFailure, DocGemmaClient
from docgemma.api.stream_events import SourcesEvent, StepEvent

from .conftest import KEYS, Server, medication_requests
from .scripted_app import PATIENT, TRIAGE_REPLY, direct


def client(server: Server, tenant: str = "clinic-a") -> DocGemmaClient:
    return DocGemmaClient(server.url, KEYS[tenant])


async def test_a_direct_question_streams_steps_tokens_and_done(server: Server) -> None:
    async with client(server) as api:
        turn = await api.chat("What is the usual adult dose of amoxicillin?")
    assert turn.session_id and turn.done is not None
    assert turn.done.session_id == turn.session_id
    assert turn.done.final_response == direct("What is the usual adult dose of amoxicillin?")
    assert turn.answer.strip() == turn.done.final_response  # the token channel is the answer
    assert turn.thinking == "considering What is the usual adult dose of amoxicillin?"
    assert "<think>" not in turn.answer and "considering" not in turn.answer
    steps = turn.steps
    assert steps[0].status == "queued" and steps[0] == turn.events[0]
    started = [s.node for s in steps if s.status == "started"]
    assert started[:2] == ["input_assembly", "intent_classify"] and started[-1] == "synthesize"
    assert [s.decision for s in steps if s.status == "decision"][0] == "DIRECT"
    assert all(s.duration_s is not None for s in steps if s.status == "finished")
    assert turn.sources is None and turn.done.citations == []


async def test_a_tool_question_cites_the_record_it_read(server: Server) -> None:
    async with client(server) as api:
        turn = await api.chat(f"Summarise the chart of patient {PATIENT}")
    tools = [s for s in turn.steps if s.status in ("tool", "tool_done")]
    assert [(s.status, s.label) for s in tools] == [
        ("tool", "Patient Record"),
        ("tool_done", "Patient Record"),
    ]
    assert turn.sources is not None
    [source] = turn.sources.sources
    assert source.n == 1 and PATIENT in source.title and source.kind == "ehr"
    assert turn.done.final_response.endswith("[1]")  # a statement citing the record
    assert turn.done.citations == [source]


async def test_approval_round_trip_writes_once_and_a_used_id_is_409(
    server: Server, fhir_server
) -> None:
    before = len(medication_requests(fhir_server, PATIENT))
    async with client(server) as api:
        turn = await api.chat(f"Prescribe metformin 500 mg twice daily for {PATIENT}")
        approval = turn.approval
        assert approval is not None and turn.done.approval_pending
        assert approval.tool == "prescribe_medication"
        assert approval.args["medication_name"] == "metformin"
        assert "metformin" in approval.summary
        # checked against the chart by code: metformin is already on John Smith's list
        assert approval.review is not None and PATIENT in approval.review.checked
        assert "duplicate" in [f.kind for f in approval.review.findings]
        assert len(medication_requests(fhir_server, PATIENT)) == before  # nothing yet
        pending = (await api.history(turn.session_id))["pending_approval"]
        assert pending["approval_id"] == approval.approval_id
        assert pending["request"]["review"] == approval.review.model_dump(mode="json")

        decided = await api.decide(approval.approval_id, "approve", approved_by="dr.lee")
        assert decided.done is not None and not decided.done.approval_pending
        assert decided.steps[0].status == "queued"
        assert any(s.label == "Prescription" and s.status == "tool_done" for s in decided.steps)
        with pytest.raises(ApiFailure) as again:
            await api.decide(approval.approval_id, "approve")
        assert again.value.status == 409 and again.value.code == "approval_used"
        history = await api.history(turn.session_id)
    orders = medication_requests(fhir_server, PATIENT)
    assert len(orders) == before + 1  # one write, and no second one for the reused id
    assert history["pending_approval"] is None
    said = [(m["role"], m["content"]) for m in history["messages"]]
    note = "(caller's note, not verified: dr.lee)"  # the approver is the key's tenant
    assert said[2] == ("user", f"Approved: {approval.summary} {note}")
    assert said[3][0] == "assistant"


async def test_rejecting_writes_nothing(server: Server, fhir_server) -> None:
    before = len(medication_requests(fhir_server, PATIENT))
    async with client(server) as api:
        turn = await api.chat(f"Prescribe metformin 500 mg twice daily for {PATIENT}")
        decided = await api.decide(turn.approval.approval_id, "reject", reason="renal function")
        history = await api.history(turn.session_id)
    assert decided.done is not None
    assert len(medication_requests(fhir_server, PATIENT)) == before
    assert history["messages"][2]["content"].startswith("Rejected: ")
    assert "renal function" in history["messages"][2]["content"]


async def test_history_has_only_what_was_said_never_the_reasoning(server: Server) -> None:
    async with client(server) as api:
        first = await api.chat("Is ibuprofen safe in asthma?")
        await api.chat("And naproxen?", session_id=first.session_id)
        history = await api.history(first.session_id)
        listed = await api.sessions()
    said = [(m["role"], m["content"]) for m in history["messages"]]
    assert said == [
        ("user", "Is ibuprofen safe in asthma?"),
        ("assistant", direct("Is ibuprofen safe in asthma?")),
        ("user", "And naproxen?"),
        ("assistant", direct("And naproxen?")),
    ]
    assert "considering" not in json.dumps(history)
    answer = history["messages"][1]
    assert answer["confidence"] == first.done.confidence
    assert answer["confidence_reason"] == first.done.confidence_reason != ""
    assert history["session"]["title"] == "Is ibuprofen safe in asthma?"
    assert first.session_id in [s["id"] for s in listed]


async def test_export_as_markdown_and_json(server: Server) -> None:
    async with client(server) as api:
        turn = await api.chat(f"Summarise the chart of patient {PATIENT}")
        markdown = await api.export(turn.session_id)
        as_json = json.loads(await api.export(turn.session_id, "json"))
    assert markdown.startswith(f"# Summarise the chart of patient {PATIENT}")
    assert "**Clinician**" in markdown and "[1]" in markdown
    assert "1. EHR chart of" in markdown and "weighing" not in markdown
    assert as_json["id"] == turn.session_id
    assert [m["role"] for m in as_json["messages"]] == ["user", "assistant"]
    assert PATIENT in as_json["messages"][1]["sources"][0]["title"]


async def test_profiles_are_listed_and_chosen_per_session(server: Server) -> None:
    async with client(server) as api:
        profiles = await api.profiles()
        turn = await api.chat("Warfarin monitoring?", profile="pharmacist")
        history = await api.history(turn.session_id)
        with pytest.raises(ApiFailure) as unknown:
            await api.chat("hello", profile="astrologer")
    names = [p["name"] for p in profiles]
    assert names[0] == "general" and "pharmacist" in names
    pharmacist = next(p for p in profiles if p["name"] == "pharmacist")
    assert pharmacist["temperature"] == 0.3 and "check_drug_safety" in pharmacist["tools"]
    assert history["session"]["profile"] == "pharmacist"
    assert unknown.value.status == 422 and "astrologer" in unknown.value.detail


async def test_triage_mode_answers_the_patient_from_the_condition_pages(server: Server) -> None:
    """The triage graph behind the same stream: its steps, reasoning apart, pages as sources."""
    async with client(server) as api:
        turn = await api.chat("I have a runny nose and keep sneezing", mode="triage")
        again = await api.chat("Since yesterday", session_id=turn.session_id)
        history = await api.history(turn.session_id)
    assert turn.done is not None and again.done is not None
    assert TRIAGE_REPLY.split(".")[0] in turn.done.final_response
    assert "a cold fits" in turn.thinking and "a cold fits" not in turn.done.final_response
    nodes = [s.node for s in turn.steps]
    assert nodes[0] == "request" and "retrieve" in nodes and "router_respond" in nodes
    assert turn.done.citations == [] and turn.of(SourcesEvent)  # condition pages, not cited
    assert any(n.startswith("Urgency: ") for n in turn.done.notices)
    assert history["session"]["mode"] == "triage"
    assert [m["role"] for m in history["messages"]] == ["user", "assistant"] * 2
    assert history["messages"][1]["notices"] == turn.done.notices  # stored with the answer
    assert "a cold fits" not in json.dumps(history)


async def test_deleting_a_session_forgets_it(server: Server) -> None:
    async with client(server) as api:
        turn = await api.chat("Hello there")
        await api.delete(turn.session_id)
        with pytest.raises(ApiFailure) as gone:
            await api.history(turn.session_id)
        assert gone.value.status == 404
        assert turn.session_id not in [s["id"] for s in await api.sessions()]


def test_every_event_type_is_in_the_openapi_schema(make_server: Callable[..., Server]) -> None:
    import httpx

    documented = make_server(DOCGEMMA_API_DOCS="true").start()  # the schema is served on request
    schema = httpx.get(f"{documented.url}/openapi.json").json()
    names = set(schema["components"]["schemas"])
    events = {"StepEvent", "ThinkingEvent", "TokenEvent", "SourcesEvent"}
    assert events | {"ApprovalRequiredEvent", "DoneEvent", "ErrorEvent"} <= names
    stream = schema["paths"]["/v1/chat/stream"]["post"]["responses"]["200"]["content"]
    assert "text/event-stream" in stream
    assert StepEvent.model_json_schema()["properties"]["status"]


@pytest.mark.parametrize(
    ("message", "reply"),
    [("Here is the chest X-ray from this morning", ATTACH_IMAGE), ("ok bye", None)],
)
async def test_asked_back_by_code_before_any_model_call(server: Server, message, reply) -> None:
    """The scripted model would answer "Direct answer: …": code answers first."""
    async with client(server) as api:
        turn = await api.chat(message)
    assert turn.done.final_response == (reply or REPLIES[SmallTalk.FAREWELL])
    started = [s.node for s in turn.steps if s.status == "started"]
    assert started == ["input_assembly", "synthesize"]
    assert not turn.thinking

"""Streaming turns into the chat history, with the agent double."""

from __future__ import annotations

import itertools

import pytest
from ui_fakes import PRESCRIPTION, FakeAgent, tool_events

from docgemma.agent.outcome import TurnResult
from docgemma.llm.errors import ModelUnavailable
from docgemma.llm.types import ImageInput
from docgemma.ui.approval import Phase
from docgemma.ui.render import BACKEND_DOWN
from docgemma.ui.session import SessionState
from docgemma.ui.turns import decide, user_turn
from docgemma.ui.uploads import Submission


def clock():
    ticks = itertools.count()
    return lambda: float(next(ticks))


async def collect(gen):
    return [view async for view in gen]


async def test_direct_turn_streams_timeline_then_answer_with_sources():
    session, agent = SessionState(), FakeAgent()
    views = await collect(
        user_turn(session, agent, Submission("What is hypertension?"), "abc", clock())
    )
    assert len(views) > 4
    roots = [v[1]["metadata"]["status"] for v in views]
    assert roots[0] == "pending" and roots[-1] == "done"
    partial = [v[-1]["content"] for v in views if not v[-1].get("metadata")]
    assert partial[0] == "Hypertension " and len(partial) >= 3
    final = session.history[-1]["content"]
    assert "[[1]](https://example.org/g)" in final and "**Sources**" in final
    assert session.follow_ups == ["What causes it?", "How is it treated?", "What are the risks?"]
    assert agent.calls[0]["thread"].startswith("abc-") and agent.calls[0]["patient"] is None


async def test_tool_steps_appear_pending_then_done():
    session, agent = SessionState(), FakeAgent(events=tool_events())
    views = await collect(user_turn(session, agent, Submission("dofetilide?"), None, clock()))
    statuses = [
        m["metadata"]["status"]
        for v in views
        for m in v
        if m.get("metadata", {}).get("title") == "Drug Safety Report"
    ]
    assert statuses[0] == "pending" and statuses[-1] == "done"


async def test_image_and_patient_reach_the_agent_and_the_history(tmp_path):
    session, agent = SessionState(patient_id="p9"), FakeAgent()
    img = ImageInput(data=b"x", mime_type="image/png")
    sub = Submission("What is this?", image=img, image_path=str(tmp_path / "a.png"))
    await collect(user_turn(session, agent, sub, None, clock()))
    assert agent.calls[0]["image"] is img and agent.calls[0]["patient"] == "p9"
    assert session.history[0]["content"] == {"path": str(tmp_path / "a.png")}


@pytest.mark.parametrize("error", [ModelUnavailable("down"), RuntimeError("boom")])
async def test_backend_failure_ends_the_turn_with_a_friendly_message(error):
    session = SessionState()
    agent = FakeAgent(fail_with=error)
    await collect(user_turn(session, agent, Submission("hi"), None, clock()))
    assert session.history[-1]["content"] == BACKEND_DOWN and not session.busy
    assert all(m["metadata"]["status"] == "done" for m in session.history if m.get("metadata"))


async def test_sessions_keep_separate_threads_and_histories():
    agent = FakeAgent()
    a, b = SessionState(), SessionState()
    await collect(user_turn(a, agent, Submission("one"), "same-hash", clock()))
    await collect(user_turn(b, agent, Submission("two"), "same-hash", clock()))
    await collect(user_turn(a, agent, Submission("three"), "same-hash", clock()))
    threads = [c["thread"] for c in agent.calls]
    assert threads[0] == threads[2] != threads[1]
    assert [m["content"] for m in b.history if m["role"] == "user"] == ["two"]


async def proposal_session():
    session = SessionState()
    agent = FakeAgent(
        events=[], result=TurnResult(final_response="Proposed.", pending_approval=PRESCRIPTION)
    )
    await collect(user_turn(session, agent, Submission("prescribe metformin"), None, clock()))
    assert session.approval.open
    return session, agent


async def test_double_approve_submits_once():
    session, agent = await proposal_session()
    await collect(decide(session, agent, "approve", clock=clock()))
    await collect(decide(session, agent, "approve", clock=clock()))
    assert len(agent.decisions) == 1 and session.approval.phase == Phase.APPROVED
    assert "The prescription was saved." in session.history[-1]["content"]
    notes = [
        m
        for m in session.history
        if m.get("metadata", {}).get("title") == "Clinician decision: approved"
    ]
    assert len(notes) == 1


async def test_reject_writes_nothing_and_closes_the_card():
    session, agent = await proposal_session()
    await collect(decide(session, agent, "reject", "wrong patient", clock()))
    assert agent.decisions[0].action == "reject" and agent.decisions[0].reason == "wrong patient"
    assert session.approval.phase == Phase.REJECTED and not session.approval.open
    assert any("**Rejected:**" in str(m["content"]) for m in session.history)

"""Streaming turns into the chat history, with the agent double."""

from __future__ import annotations

import itertools

import pytest
from ui_fakes import (
    PRESCRIPTION,
    FakeAgent,
    direct_events,
    reading_events,
    thinking_events,
    tool_events,
)

from docgemma.agent.outcome import TurnResult
from docgemma.config import Settings
from docgemma.llm.errors import ModelUnavailable
from docgemma.llm.types import ImageInput
from docgemma.ui.approval import Phase
from docgemma.ui.handlers import Handlers
from docgemma.ui.render import BACKEND_DOWN
from docgemma.ui.session import SessionState
from docgemma.ui.turns import DRAFTING, decide, user_turn
from docgemma.ui.uploads import Submission


def clock():
    ticks = itertools.count()
    return lambda: float(next(ticks))


async def collect(gen):
    return [view async for view in gen]


async def test_direct_turn_streams_timeline_then_answer_with_sources():
    session, agent = SessionState(), FakeAgent()
    views = await collect(user_turn(session, agent, Submission("What is hypertension?"), clock()))
    assert len(views) > 4
    roots = [v[1]["metadata"]["status"] for v in views]
    assert roots[0] == "pending" and roots[-1] == "done"
    partial = [v[-1]["content"] for v in views if not v[-1].get("metadata")]
    partial = [p for p in partial if p != DRAFTING]  # until the first checked statement
    assert partial[0] == "Hypertension " and len(partial) >= 3
    final = session.history[-1]["content"]
    assert "[[1]](https://example.org/g)" in final and "**Sources**" in final
    assert session.follow_ups == ["What causes it?", "How is it treated?", "What are the risks?"]
    assert len(agent.calls[0]["thread"]) >= 40 and agent.calls[0]["patient"] is None


async def test_tool_steps_appear_pending_then_done():
    session, agent = SessionState(), FakeAgent(events=tool_events())
    views = await collect(user_turn(session, agent, Submission("dofetilide?"), clock()))
    statuses = [
        m["metadata"]["status"]
        for v in views
        for m in v
        if m.get("metadata", {}).get("title") == "Drug Safety Report"
    ]
    assert statuses[0] == "pending" and statuses[-1] == "done"


def shown_busy(message):
    """Gradio's rule for a thought's title: ``aria-busy`` while its content is empty."""
    return message["content"] in ("", None)


def shown_finished(message):
    """What Gradio draws on a thought's title: no spinner, and a time or a log beside it."""
    meta = message["metadata"]
    return meta["status"] == "done" and bool(meta.get("duration") or meta.get("log"))


async def test_a_finished_turn_shows_every_step_finished_and_none_busy():
    events = reading_events() + tool_events() + direct_events("Dofetilide is an antiarrhythmic.")
    session, agent = SessionState(), FakeAgent(events=events)
    await collect(user_turn(session, agent, Submission("dofetilide?"), clock()))
    steps = [m for m in session.history if m.get("metadata")]
    assert steps[1]["metadata"]["title"] == "Reading the question"
    assert [m["metadata"]["title"] for m in steps if shown_busy(m)] == []
    assert [m["metadata"]["title"] for m in steps if not shown_finished(m)] == []
    assert steps[1]["metadata"]["log"] == "done" and "duration" not in steps[1]["metadata"]


async def test_image_and_patient_reach_the_agent_and_the_history(tmp_path):
    session, agent = SessionState(patient_id="p9"), FakeAgent()
    img = ImageInput(data=b"x", mime_type="image/png")
    sub = Submission("What is this?", image=img, image_path=str(tmp_path / "a.png"))
    await collect(user_turn(session, agent, sub, clock()))
    assert agent.calls[0]["image"] is img and agent.calls[0]["patient"] == "p9"
    assert session.history[0]["content"] == {"path": str(tmp_path / "a.png")}


@pytest.mark.parametrize("error", [ModelUnavailable("down"), RuntimeError("boom")])
async def test_backend_failure_ends_the_turn_with_a_friendly_message(error):
    session = SessionState()
    agent = FakeAgent(fail_with=error)
    await collect(user_turn(session, agent, Submission("hi"), clock()))
    assert session.history[-1]["content"] == BACKEND_DOWN and not session.busy
    assert all(m["metadata"]["status"] == "done" for m in session.history if m.get("metadata"))


async def test_sessions_keep_separate_threads_and_histories():
    agent = FakeAgent()
    a, b = SessionState(), SessionState()
    await collect(user_turn(a, agent, Submission("one"), clock()))
    await collect(user_turn(b, agent, Submission("two"), clock()))
    await collect(user_turn(a, agent, Submission("three"), clock()))
    threads = [c["thread"] for c in agent.calls]
    assert threads[0] == threads[2] != threads[1]
    assert [m["content"] for m in b.history if m["role"] == "user"] == ["two"]


async def proposal_session():
    session = SessionState()
    agent = FakeAgent(
        events=[], result=TurnResult(final_response="Proposed.", pending_approval=PRESCRIPTION)
    )
    await collect(user_turn(session, agent, Submission("prescribe metformin"), clock()))
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


def answer_of(view):
    """The streamed answer: the last message, when it is not a timeline message."""
    last = view[-1]
    return "" if last.get("metadata") else last["content"]


async def test_the_answer_grows_in_place_and_the_final_text_replaces_it():
    agent = FakeAgent(
        events=thinking_events("", "Draft words streamed"),
        result=TurnResult(final_response="The cleaned final answer."),
    )
    session = SessionState()
    views = await collect(user_turn(session, agent, Submission("q"), clock()))
    partial = [answer_of(v) for v in views if answer_of(v) and answer_of(v) != DRAFTING]
    assert partial[:3] == ["Draft ", "Draft words ", "Draft words streamed "]
    # one assistant answer message, updated in place: the list never grows for a token
    lengths = {len(v) for v in views if answer_of(v)}
    assert len(lengths) == 1
    assert session.history[-1]["content"].startswith("The cleaned final answer.\n\n_Confidence:")
    assert all("Draft" not in str(m["content"]) for m in session.history)


async def test_thinking_shows_in_its_own_message_never_in_the_answer():
    agent = FakeAgent(events=thinking_events("weigh renal function first", "Reduce the dose."))
    session = SessionState(thinking=True, thinking_budget=64)
    views = await collect(user_turn(session, agent, Submission("dose?"), clock()))
    assert agent.calls[0]["thinking"] is True and agent.calls[0]["thinking_budget"] == 64
    thinking = [m for v in views for m in v if m.get("metadata", {}).get("title") == "Thinking"]
    assert thinking[0]["metadata"]["status"] == "pending"
    assert thinking[-1]["content"] == "weigh renal function first"
    assert thinking[-1]["metadata"]["status"] == "done" and "duration" in thinking[-1]["metadata"]
    assert all("renal" not in answer_of(v) for v in views)
    final = [m for m in session.history if m.get("metadata", {}).get("title") == "Thinking"]
    assert final[0]["metadata"]["status"] == "done"
    assert "renal" not in session.history[-1]["content"]


async def test_without_thinking_there_is_no_thinking_message_and_defaults_pass_through():
    session, agent = SessionState(), FakeAgent()
    await collect(user_turn(session, agent, Submission("q"), clock()))
    assert agent.calls[0]["thinking"] is None and agent.calls[0]["thinking_budget"] is None
    assert not any(m.get("metadata", {}).get("title") == "Thinking" for m in session.history)


async def test_the_settings_controls_set_the_session_and_reach_resume(tmp_path):
    handlers = Handlers(Settings(data_dir=tmp_path), _no_agent, None, tmp_path)
    session, agent = await proposal_session()
    handlers.set_thinking(True, 96.0, session)
    assert (session.thinking, session.thinking_budget) == (True, 96)
    await collect(decide(session, agent, "approve", clock=clock()))
    assert agent.resume_thinking == [(True, 96)]
    assert "session only" in handlers.settings_markdown()


async def _no_agent():
    raise AssertionError("not used")


async def test_the_answer_shows_drafting_until_a_checked_statement_arrives():
    """Nothing unchecked is ever on screen: the answer says it is drafting, then shows the
    statements that passed their check, then the final text."""
    from docgemma.events import AnswerToken, NodeStarted

    events = [
        NodeStarted(node="synthesize", label="Writing the answer"),
        AnswerToken(node="synthesize", text="Metformin is first-line. [1]"),
    ]
    result = TurnResult(final_response="Metformin is first-line. [1]")
    session, agent = SessionState(), FakeAgent(events=events, result=result)
    session.show_unverified = True
    views = await collect(user_turn(session, agent, Submission("T2D?"), clock()))
    shown = [v[-1]["content"] for v in views if v[-1].get("role") == "assistant"]
    shown = [s for s in shown if isinstance(s, str) and s and not s.startswith("Read")]
    assert DRAFTING in shown and shown.index(DRAFTING) < len(shown) - 1
    assert shown[-1].startswith("Metformin is first-line.")
    assert agent.calls[-1]["show_unverified"] is True


async def test_a_new_message_discards_the_waiting_proposal():
    """The agent discards a proposal nobody decided when a new message comes; the page
    must not keep showing its card (approving it would be refused)."""
    session, agent = await proposal_session()
    agent.result = TurnResult(final_response="Asthma is a chronic airway disease.")
    await collect(user_turn(session, agent, Submission("What is asthma?"), clock()))
    assert not session.approval.open and session.approval.request is None

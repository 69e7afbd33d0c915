"""Streaming one agent turn (or one approval decision) into the chat history.

Gradio-free: these async generators yield the whole message list after every trace
event, so the timeline fills in live and the answer grows token by token. A failing
backend ends the turn with a friendly message instead of an exception in the page.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Literal

from docgemma.agent.outcome import ApprovalDecision, TurnResult
from docgemma.agent.runner import TurnItem, TurnRunner
from docgemma.events import AnswerToken, NodeStarted
from docgemma.ui import untrusted
from docgemma.ui.approval import ApprovalState, propose, settle, submit
from docgemma.ui.render import BACKEND_DOWN, answer_markdown
from docgemma.ui.session import SessionState
from docgemma.ui.timeline import Timeline
from docgemma.ui.uploads import Submission

log = logging.getLogger(__name__)
Clock = Callable[[], float]
History = list[dict[str, Any]]
ANSWER_NODE = "synthesize"
DRAFTING = "*Drafting the answer — each statement appears once its quote is found in its source…*"
Recorder = Callable[[str, str | None, str, TurnResult], Awaitable[None]]
"""Keeps a copy of a finished turn: ``(thread_id, profile, said, result)``."""


async def user_turn(
    session: SessionState,
    agent: TurnRunner,
    submission: Submission,
    clock: Clock = time.monotonic,
    record: Recorder | None = None,
) -> AsyncIterator[History]:
    """Ask the agent; the user's message (and image) go into the history first, and a
    proposal still waiting is discarded; ``record`` gets the finished turn."""
    thread = session.thread()
    session.history.extend(user_messages(submission))
    session.follow_ups = []
    # a new message discards a proposal still waiting, as the agent and the API do: its
    # card must not stay on the page to be approved
    session.approval = ApprovalState()
    items = agent.run_turn(
        thread,
        submission.text,
        image=submission.image,
        patient_id=session.patient_for_turn(),
        thinking=session.thinking,
        thinking_budget=session.thinking_budget,
        show_unverified=session.show_unverified,
    )
    result: list[TurnResult] = []
    timeline = Timeline(session.next_turn_id(), clock())
    async for view in _stream(session, items, timeline, clock, result, session.profile):
        yield view
    if record is not None and result:
        await record(thread, session.profile, submission.text, result[0])


def user_messages(submission: Submission) -> History:
    """The clinician's side of a turn: the image (if any), then the text."""
    image = (
        [{"role": "user", "content": {"path": submission.image_path}}]
        if submission.image_path
        else []
    )
    return [*image, {"role": "user", "content": submission.text}]


async def decide(
    session: SessionState,
    agent: TurnRunner,
    action: Literal["approve", "reject"],
    reason: str | None = None,
    clock: Clock = time.monotonic,
    approved_by: str = "clinician",
    record: Recorder | None = None,
) -> AsyncIterator[History]:
    """Send the clinician's decision once; repeated clicks only re-show the history."""
    state, decision = submit(session.approval, action, reason, approved_by)
    if decision is None:
        yield list(session.history)
        return
    session.approval = state
    request = state.request
    assert request is not None  # an open proposal always has one
    verb = {"approve": "Approved", "edit": "Approved with edits", "reject": "Rejected"}[
        decision.action
    ]
    shown = untrusted.plain(request.summary)  # the proposal's text, never markup
    session.history.append({"role": "user", "content": f"**{verb}:** {shown}"})
    timeline = Timeline(session.next_turn_id(), clock())
    timeline.note(
        f"Clinician decision: {verb.lower()}", _decision_detail(decision, state.args), clock()
    )
    result: list[TurnResult] = []
    items = agent.resume(
        session.thread_id,
        decision,
        thinking=session.thinking,
        thinking_budget=session.thinking_budget,
    )
    profile = session.approval_profile
    async for view in _stream(session, items, timeline, clock, result, profile):
        yield view
    if record is not None and result:
        await record(session.thread_id, profile, f"{verb}: {request.summary}", result[0])
    ok = bool(result) and not any(
        c.error_type for c in result[0].tool_calls if c.tool == request.tool
    )
    session.approval = settle(session.approval, decision, ok)
    if ok and decision.action != "reject":
        session.record_changed(state.args.get("patient_id"))


def _decision_detail(decision: ApprovalDecision, args: dict[str, Any]) -> str:
    if decision.action == "reject":
        return "Nothing was written to the record." + (
            f" Reason: {decision.reason}" if decision.reason else ""
        )
    shown = ", ".join(f"{k} = {v}" for k, v in args.items() if v not in (None, ""))
    return f"Writing to the record: {shown}"


async def _stream(
    session: SessionState,
    items: AsyncIterator[TurnItem],
    timeline: Timeline,
    clock: Clock,
    out: list[TurnResult] | None = None,
    profile: str | None = None,
) -> AsyncIterator[History]:
    """``profile``: the expert profile this run used; a write it proposes is decided under it."""
    base = list(session.history)
    answer = ""
    drafting = False
    result: TurnResult | None = None

    def view(text: str) -> History:
        shown = [{"role": "assistant", "content": text}] if text else []
        return base + timeline.messages() + shown

    session.busy = True
    try:
        yield view("")
        async for item in items:
            if isinstance(item, TurnResult):
                result = item
                continue
            timeline.apply(item, clock())  # thinking tokens go to their own message
            if isinstance(item, AnswerToken):
                answer += item.text
            elif isinstance(item, NodeStarted) and item.node == ANSWER_NODE:
                drafting = True
            # only checked text streams; until the first of it, the answer shows it is drafting
            shown = untrusted.markdown(answer) if answer else (DRAFTING if drafting else "")
            yield view(shown)
    except Exception:  # the page must survive any backend failure; the log keeps the detail
        log.exception("agent turn failed")
    finally:
        session.busy = False
    timeline.close(clock(), result.reasoning_timeline if result else None)
    if result is None:
        session.history = view(BACKEND_DOWN)
        yield list(session.history)
        return
    session.follow_patient(result.active_patient_id)
    if out is not None:
        out.append(result)
    session.follow_ups = [q for q in result.follow_up_questions if q.strip()][:3]
    if result.pending_approval is not None:
        session.approval = propose(session.approval, result.pending_approval)
        session.approval_profile = profile
    session.history = view(answer_markdown(result))  # the final text replaces the streamed one
    yield list(session.history)

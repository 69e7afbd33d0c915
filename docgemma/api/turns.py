"""One turn (or one approval decision) as a stream of API events, stored when it ends.

The first event is a ``queued`` step, sent before the graph starts, so a client sees
its request accepted at once even when the model is busy with other sessions. The
turn's messages are written only after its ``TurnResult`` arrived: a client that
disconnects cancels the run and nothing of it is stored. An approval decision, once
claimed, runs to the end even without a listener — the clinician's approval was given
and its write must not be left half-done.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from docgemma.agent.outcome import ApprovalDecision, TurnResult
from docgemma.agent.runner import TurnRunner
from docgemma.api.models import HistoryMessage, PendingApproval, SessionInfo
from docgemma.api.store import SessionStore
from docgemma.api.stream_events import (
    ApprovalRequiredEvent,
    DoneEvent,
    ErrorEvent,
    SourcesEvent,
    StepEvent,
    StreamEvent,
    numbered,
    translate,
)
from docgemma.triage.demographics import Demographics

log = logging.getLogger(__name__)
_CITED = re.compile(r"\[(\d{1,2})\]")
_VERBS = {"approve": "Approved", "edit": "Approved with edits", "reject": "Rejected"}
_background: set[asyncio.Task[None]] = set()
NO_RESULT = "The assistant could not finish this turn. Please try again."


@dataclass(frozen=True)
class TurnInput:
    message: str
    patient_id: str | None = None
    thinking: bool | None = None
    demographics: Demographics | None = None
    show_unverified: bool = False


def queued() -> StepEvent:
    return StepEvent(node="request", label="Request received", status="queued")


def cited(result: TurnResult) -> list[int]:
    """Source numbers the answer cites, in order, each once, only those that exist."""
    numbers = (int(n) for n in _CITED.findall(result.final_response))
    return list(dict.fromkeys(n for n in numbers if 1 <= n <= len(result.sources_used)))


def closing_events(
    session: SessionInfo, result: TurnResult, approval_id: str | None
) -> list[StreamEvent]:
    sources = numbered(result.sources_used)
    events: list[StreamEvent] = [SourcesEvent(sources=sources)] if sources else []
    if result.pending_approval is not None and approval_id is not None:
        request = result.pending_approval
        events.append(
            ApprovalRequiredEvent(
                approval_id=approval_id,
                tool=request.tool,
                tool_label=request.tool_label,
                args=request.args,
                summary=request.summary,
                review=request.review,
                replaces=request.replaces,
            )
        )
    events.append(
        DoneEvent(
            session_id=session.id,
            final_response=result.final_response,
            citations=[sources[n - 1] for n in cited(result)],
            confidence=result.confidence_level,
            confidence_reason=result.confidence_reason,
            suggested_questions=result.follow_up_questions,
            notices=result.notices,
            approval_pending=result.pending_approval is not None,
        )
    )
    return events


def answer_message(result: TurnResult, at: float) -> HistoryMessage:
    return HistoryMessage(
        role="assistant",
        content=result.final_response,
        created_at=at,
        sources=[s.model_dump(mode="json") for s in result.sources_used],
        confidence=result.confidence_level,
        confidence_reason=result.confidence_reason,
        notices=list(result.notices),
    )


async def _run(
    store: SessionStore,
    session: SessionInfo,
    items: AsyncIterator[object],
    said: str,
) -> AsyncIterator[StreamEvent]:
    """Relay the graph's events; store the exchange and close the stream once it ends."""
    result: TurnResult | None = None
    async for item in items:
        if isinstance(item, TurnResult):
            result = item
        elif (event := translate(item)) is not None:  # type: ignore[arg-type]
            yield event
    if result is None:
        yield ErrorEvent(message=NO_RESULT, code="no_result")
        return
    now = store.now()
    messages = [HistoryMessage(role="user", content=said, created_at=now)]
    messages.append(answer_message(result, now))
    try:
        approval_id = await store.record_turn(session, messages, result.pending_approval)
    except Exception:
        log.exception("storing the turn of session %s failed", session.id)
        yield ErrorEvent(message="The answer could not be saved. Please retry.", code="storage")
        return
    for event in closing_events(session, result, approval_id):
        yield event


async def turn_events(
    store: SessionStore, backend: TurnRunner, session: SessionInfo, turn: TurnInput
) -> AsyncIterator[StreamEvent]:
    yield queued()
    await store.discard_pending(session.id)
    items = backend.run_turn(
        session.id,
        turn.message,
        patient_id=turn.patient_id,
        thinking=turn.thinking,
        demographics=turn.demographics,
        show_unverified=turn.show_unverified,
    )
    async for event in _run(store, session, items, turn.message):
        yield event


async def decision_events(
    store: SessionStore,
    backend: TurnRunner,
    session: SessionInfo,
    pending: PendingApproval,
    decision: ApprovalDecision,
    note: str | None = None,
) -> AsyncIterator[StreamEvent]:
    """Resume with a claimed approval; runs to completion even if the client leaves.

    ``note``: free text the caller sent with the decision, stored in the history as a
    labelled, unverified note (the approver is ``decision.approved_by``).
    """
    said = f"{_VERBS[decision.action]}: {pending.request.summary}"
    if decision.reason:
        said += f" (reason: {decision.reason})"
    if note and note.strip():
        said += f" (caller's note, not verified: {' '.join(note.split())})"
    items = backend.resume(session.id, decision)
    async for event in detached(_run(store, session, items, said), first=queued()):
        yield event


async def detached(
    events: AsyncIterator[StreamEvent], first: StreamEvent
) -> AsyncIterator[StreamEvent]:
    """Run ``events`` in a task of its own; the caller going away does not stop it."""
    queue: asyncio.Queue[StreamEvent | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for event in events:
                queue.put_nowait(event)
        except Exception:
            log.exception("approval run failed")
            queue.put_nowait(ErrorEvent(message=NO_RESULT, code="internal"))
        finally:
            queue.put_nowait(None)

    task = asyncio.create_task(pump())
    _background.add(task)
    task.add_done_callback(_background.discard)
    yield first
    while (event := await queue.get()) is not None:
        yield event

"""The original triage endpoints, for clients written for them: a plain token stream and history.

``POST /query_stream`` streams text: the reasoning (if any) after ``<|im_start|>think``,
then ``<|im_start|>answer`` and the answer, so such a client splits on the answer
marker as before. ``thread_id`` is a session id this API issued (returned in the
``X-Thread-Id`` header of the first call); a client cannot choose its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from docgemma.api.models import CompatQuery, Problem
from docgemma.api.state import ApiState, State, Tenant
from docgemma.api.stream_events import (
    ApprovalRequiredEvent,
    DoneEvent,
    ErrorEvent,
    StreamEvent,
    ThinkingEvent,
    TokenEvent,
)
from docgemma.api.turns import TurnInput, turn_events

THINK_MARKER = "<|im_start|>think\n"
ANSWER_MARKER = "\n<|im_start|>answer\n"

router = APIRouter(tags=["compatibility"])


async def plain_text(events: AsyncIterator[StreamEvent]) -> AsyncIterator[str]:
    """The answer (and reasoning) as one text stream with the think and answer markers."""
    answered = thought = False
    shown = ""
    async for event in events:
        if isinstance(event, ThinkingEvent):
            if not thought:
                thought = True
                yield THINK_MARKER
            yield event.text
            continue
        if not answered and isinstance(event, TokenEvent | DoneEvent | ErrorEvent):
            answered = True
            yield ANSWER_MARKER
        if isinstance(event, TokenEvent):
            shown += event.text
            yield event.text
        elif isinstance(event, DoneEvent):  # the final text is authoritative: send what differs
            final = event.final_response
            if final.startswith(shown):
                yield final[len(shown) :]
            elif final.strip() != shown.strip():
                yield f"\n\n{final}"
        elif isinstance(event, ApprovalRequiredEvent):
            yield f"\n\n[Approval needed: {event.summary}. Approval id: {event.approval_id}]"
        elif isinstance(event, ErrorEvent):
            yield f"\n\n{event.message}"


@router.post(
    "/query_stream",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/plain": {}}}, 404: {"model": Problem}},
)
async def query_stream(
    body: CompatQuery, tenant: str = Tenant, api: ApiState = State
) -> StreamingResponse:
    if body.thread_id:
        session = await api.session(tenant, body.thread_id)
    else:
        profile = api.profile(None)
        session = await api.store.create(tenant, profile.name, profile.mode)
    backend = await api.backend(session)
    events = turn_events(api.store, backend, session, TurnInput(body.query))
    return StreamingResponse(
        plain_text(events),
        media_type="text/plain; charset=utf-8",
        headers={"X-Thread-Id": session.id, "Cache-Control": "no-store"},
    )


@router.get("/get_history", responses={404: {"model": Problem}})
async def get_history(
    thread_id: str = Query(max_length=64), tenant: str = Tenant, api: ApiState = State
) -> list[dict[str, str]]:
    """The thread's user and assistant messages, oldest first."""
    session = await api.session(tenant, thread_id)
    return [{"role": m.role, "content": m.content} for m in await api.store.history(session.id)]

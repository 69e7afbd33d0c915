"""The original triage endpoints, for clients written for them: a plain token stream and history.

``POST /query_stream`` runs the patient-triage graph with the request's ``demographics``
and streams text: the reasoning (if any) after ``<|im_start|>think``, then
``<|im_start|>answer`` and the answer, so such a client splits on the answer marker as
before. ``thread_id`` is either a session id this API issued (returned in the
``X-Thread-Id`` header) or a name the client chose: an unknown name starts a new triage
session under that name, for this tenant only (another tenant choosing the same name
gets a session of its own). A thread the ``/v1`` API started keeps its own mode.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from docgemma.api.models import THREAD_NAME, CompatQuery, Problem, SessionInfo
from docgemma.api.state import ApiError, ApiState, State, Tenant
from docgemma.api.stream_events import (
    ApprovalRequiredEvent,
    DoneEvent,
    ErrorEvent,
    StreamEvent,
    ThinkingEvent,
    TokenEvent,
)
from docgemma.api.turn_setup import TurnSetup
from docgemma.api.turns import TurnInput, turn_events
from docgemma.experts import Mode

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


async def thread(api: ApiState, tenant: str, thread_id: str | None) -> SessionInfo:
    """The tenant's session by its issued id or its client-chosen name; else a new triage
    session (named ``thread_id`` when one was given)."""
    if thread_id:
        found = await api.store.get(tenant, thread_id) or await api.store.named(tenant, thread_id)
        if found is not None:
            return found
    profile = api.profile_for_mode(Mode.TRIAGE, tenant)
    return await api.store.create(tenant, profile.name, Mode.TRIAGE, name=thread_id or None)


@router.post(
    "/query_stream",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/plain": {}}}, 422: {"model": Problem}},
)
async def query_stream(
    body: CompatQuery, tenant: str = Tenant, api: ApiState = State
) -> StreamingResponse:
    session = await thread(api, tenant, body.thread_id)
    if body.demographics is not None and session.mode is not Mode.TRIAGE:
        raise ApiError(
            422,
            "demographics apply to triage threads; this thread is a clinician session.",
            "demographics_not_triage",
        )
    backend = await api.backend(session, TurnSetup(tenant))
    turn = TurnInput(body.query, demographics=body.demographics)
    events = turn_events(api.store, backend, session, turn)
    return StreamingResponse(
        plain_text(events),
        media_type="text/plain; charset=utf-8",
        headers={"X-Thread-Id": session.id, "Cache-Control": "no-store"},
    )


@router.get("/get_history", responses={404: {"model": Problem}})
async def get_history(
    thread_id: str = Query(pattern=THREAD_NAME), tenant: str = Tenant, api: ApiState = State
) -> list[dict[str, str]]:
    """The thread's user and assistant messages, oldest first (by issued id or chosen name)."""
    session = await api.store.get(tenant, thread_id) or await api.store.named(tenant, thread_id)
    if session is None:
        session = await api.session(tenant, thread_id)  # the same 404 as an unknown session
    return [{"role": m.role, "content": m.content} for m in await api.store.history(session.id)]

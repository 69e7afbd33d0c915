"""The ``/v1`` endpoints: streamed chat, approvals, sessions, history, export, profiles."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Response
from fastapi.responses import PlainTextResponse
from pydantic import RootModel
from sse_starlette import EventSourceResponse, ServerSentEvent

from docgemma.agent.outcome import ApprovalDecision
from docgemma.api.models import (
    ApprovalBody,
    ChatRequest,
    Problem,
    ProfileInfo,
    SessionHistory,
    SessionInfo,
)
from docgemma.api.state import ApiError, ApiState, State, Tenant
from docgemma.api.store import ApprovalUsed
from docgemma.api.stream_events import StreamEvent
from docgemma.api.turn_setup import TurnSetup
from docgemma.api.turns import TurnInput, decision_events, turn_events
from docgemma.transcript import to_json, to_markdown

router = APIRouter(prefix="/v1")


class StreamEventSchema(RootModel[StreamEvent]):
    """One Server-Sent Event's data (its ``event`` field is also the SSE event name)."""


STREAMED: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Server-Sent Events: step, thinking, token, sources, "
        "approval_required, done, error",
        "content": {
            "text/event-stream": {"schema": {"$ref": "#/components/schemas/StreamEventSchema"}}
        },
        "model": StreamEventSchema,
    },
    401: {"model": Problem},
    404: {"model": Problem},
    413: {"model": Problem},
    422: {"model": Problem},
}
SESSION_HEADER = "X-DocGemma-Session"


def sse(events: Any, session_id: str) -> EventSourceResponse:
    async def frames() -> Any:
        async for event in events:
            yield ServerSentEvent(data=event.model_dump_json(), event=event.event)

    return EventSourceResponse(
        frames(), ping=15, headers={SESSION_HEADER: session_id, "Cache-Control": "no-store"}
    )


@router.post("/chat/stream", responses=STREAMED, response_class=EventSourceResponse)
async def chat_stream(body: ChatRequest, tenant: str = Tenant, api: ApiState = State) -> Any:
    """Answer one message; a new session (with ``profile`` and ``mode``) unless one is named.

    ``enable_rag`` and ``enable_tools`` hold for this turn only; the knowledge base a
    clinician session searches includes this tenant's uploaded documents.
    """
    if body.session_id:
        session = await api.session(tenant, body.session_id)
    else:
        profile = api.profile(body.profile, tenant)
        mode = body.mode or profile.mode
        api.mode(mode)  # refuse before creating a session the server cannot serve
        session = await api.store.create(tenant, profile.name, mode)
    setup = TurnSetup(tenant, rag=body.enable_rag, tools=body.enable_tools)
    backend = await api.backend(session, setup)
    turn = TurnInput(
        body.message,
        patient_id=body.patient_id,
        thinking=body.thinking,
        demographics=body.demographics,
        show_unverified=body.show_unverified,
    )
    return sse(turn_events(api.store, backend, session, turn), session.id)


@router.post(
    "/approvals/{approval_id}",
    responses={**STREAMED, 409: {"model": Problem}},
    response_class=EventSourceResponse,
)
async def decide(
    approval_id: str, body: ApprovalBody, tenant: str = Tenant, api: ApiState = State
) -> Any:
    """Approve, edit or reject a proposed EHR write; the paused turn resumes and streams.

    Each approval id works once: a second use is 409 and writes nothing.
    """
    session = await api.store.approval_session(tenant, approval_id)
    if session is None:
        raise ApiError(404, "No such approval.", "approval_not_found")
    pending = await api.store.pending(session.id)
    used = ApiError(409, "This approval was already decided.", "approval_used")
    if pending is None or pending.approval_id != approval_id:
        raise used
    # before the claim: a refusal must not use the id
    backend = await api.backend(session, TurnSetup(tenant))
    try:
        await api.store.claim(approval_id)
    except ApprovalUsed:
        raise used from None
    decision = ApprovalDecision(
        action=body.action, args=body.args, approved_by=approver(tenant), reason=body.reason
    )
    note = body.note or body.approved_by
    events = decision_events(api.store, backend, session, pending, decision, note=note)
    return sse(events, session.id)


def approver(tenant: str) -> str:
    """Who approved, as the record names them: the authenticated caller, i.e. the label of
    the API key's tenant, never a name the request body types."""
    return f"{tenant} (API key)"


@router.get("/sessions", response_model=list[SessionInfo])
async def sessions(tenant: str = Tenant, api: ApiState = State) -> list[SessionInfo]:
    return await api.store.sessions(tenant)


@router.get(
    "/sessions/{session_id}/history",
    response_model=SessionHistory,
    responses={404: {"model": Problem}},
)
async def history(session_id: str, tenant: str = Tenant, api: ApiState = State) -> SessionHistory:
    """The clinician's and the assistant's messages, and a write waiting for approval."""
    session = await api.session(tenant, session_id)
    return SessionHistory(
        session=session,
        messages=await api.store.history(session.id),
        pending_approval=await api.store.pending(session.id),
    )


@router.get(
    "/sessions/{session_id}/export",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/markdown": {}, "application/json": {}}}},
)
async def export(
    session_id: str,
    format: Literal["markdown", "json"] = Query("markdown"),
    tenant: str = Tenant,
    api: ApiState = State,
) -> Response:
    session = await api.session(tenant, session_id)
    messages = await api.store.history(session.id)
    if format == "json":
        body = to_json(session.model_dump(mode="json"), messages)
        media, ext = "application/json", "json"
    else:
        body, media, ext = to_markdown(session.title, messages), "text/markdown", "md"
    disposition = f'attachment; filename="docgemma-{session.id[:8]}.{ext}"'
    return Response(body, media_type=media, headers={"Content-Disposition": disposition})


@router.delete("/sessions/{session_id}", status_code=204, responses={404: {"model": Problem}})
async def delete(session_id: str, tenant: str = Tenant, api: ApiState = State) -> Response:
    session = await api.session(tenant, session_id)
    await api.mode(session.mode).forget(session.id)
    await api.store.delete(tenant, session.id)
    return Response(status_code=204)


@router.get("/profiles", response_model=list[ProfileInfo])
async def profiles(tenant: str = Tenant, api: ApiState = State) -> list[ProfileInfo]:
    """The profiles this tenant may use (shared ones and its own)."""
    return [
        ProfileInfo(
            name=p.name,
            title=p.title,
            description=p.description,
            mode=p.mode,
            temperature=p.temperature,
            tools=p.tools,
            stream_reasoning=p.stream_reasoning,
            available=p.mode in api.runtime.modes,
        )
        for p in api.profiles.for_tenant(tenant)
    ]

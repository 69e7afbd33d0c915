"""The API's request and response bodies (everything here appears in the OpenAPI schema)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from docgemma.agent.outcome import ApprovalRequest
from docgemma.experts import Mode
from docgemma.llm.engine_process import EngineState
from docgemma.transcript import MAX_MESSAGE_CHARS
from docgemma.transcript import TranscriptMessage as HistoryMessage
from docgemma.triage.demographics import Demographics

THREAD_NAME = r"^[A-Za-z0-9._-]{1,64}$"
"""A thread id as a client may choose it: letters, digits, dot, dash, underscore."""


class ChatRequest(BaseModel):
    """One turn: a new session when ``session_id`` is omitted."""

    model_config = ConfigDict(extra="forbid")

    message: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)
    session_id: str | None = Field(None, max_length=64)
    profile: str | None = Field(
        None, max_length=40, description="Expert profile for a new session; default: the first"
    )
    mode: Mode | None = Field(
        None, description="clinician or triage for a new session; default: the profile's mode"
    )
    patient_id: str | None = Field(
        None, max_length=64, description='Active patient; "" clears it, omitted keeps it'
    )
    thinking: bool | None = Field(None, description="Reason before answering (thinking channel)")
    enable_rag: bool = Field(
        True,
        description="Search the knowledge base (condition pages and this tenant's documents) "
        "and ground direct answers in it; triage needs it",
    )
    enable_tools: bool = Field(
        True, description="Use the profile's other tools (record, drugs, literature, trials)"
    )
    demographics: Demographics | None = Field(
        None, description="Triage: the patient's age band, sex, pregnancy; omitted keeps them"
    )
    show_unverified: bool = Field(
        False,
        description="When no source answers, add the model's own answer, labelled unverified "
        "(never by default)",
    )


class ApprovalBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["approve", "edit", "reject"]
    args: dict[str, Any] | None = Field(None, description="Edited arguments, with edit")
    reason: str | None = Field(None, max_length=500)
    note: str | None = Field(
        None,
        max_length=80,
        description="Free text kept with the decision as a note (not verified); the "
        "approver recorded in the record is the caller's API key label",
    )
    approved_by: str | None = Field(
        None,
        max_length=80,
        description="Older name of ``note``: kept only as the note, never as the approver",
    )


class SessionInfo(BaseModel):
    id: str
    profile: str
    mode: Mode
    title: str
    created_at: float
    updated_at: float


class SessionHistory(BaseModel):
    session: SessionInfo
    messages: list[HistoryMessage]
    pending_approval: PendingApproval | None = None


class PendingApproval(BaseModel):
    approval_id: str
    request: ApprovalRequest


class ProfileInfo(BaseModel):
    name: str
    title: str
    description: str
    mode: Mode
    temperature: float
    tools: list[str] | None
    stream_reasoning: bool
    """Whether this profile's reasoning is streamed (``thinking`` events)."""
    available: bool
    """False when this server has no backend for the profile's mode."""


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    model_loaded: bool
    model: EngineState = "ok"
    """The model engine: ok, starting, restarting (after a crash) or failed."""
    fhir_reachable: bool
    kb_ready: bool | None
    """None when no knowledge base is configured."""
    database: bool
    modes: list[Mode]


class Problem(BaseModel):
    """Every error response: a readable message and a stable code."""

    detail: str
    code: str


class CompatQuery(BaseModel):
    """The ``POST /query_stream`` body of the plain-stream endpoints (``compat``)."""

    query: str = Field(min_length=1, max_length=20_000)
    thread_id: str | None = Field(
        None,
        pattern=THREAD_NAME,
        description="A session id this API issued, or a name the client chose for a new "
        "thread (kept per tenant)",
    )
    demographics: Demographics | None = Field(
        None, description="age_band, sex, pregnant; null or omitted keeps the thread's"
    )


SessionHistory.model_rebuild()

"""What the chat and the approval card do; Gradio glue over ``turns`` and ``approval``.

The patient panel's buttons are ``patient_panel``'s.

No ``from __future__ import annotations`` here: Gradio reads the ``gr.Request``
annotation at run time to inject the caller's session.
"""

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import gradio as gr
from gradio.utils import get_upload_folder
from pydantic import BaseModel

from docgemma.agent.runner import TurnRunner
from docgemma.assets import model_problem
from docgemma.auth import Access, Mode
from docgemma.config import Settings
from docgemma.tools.base import ToolRegistry
from docgemma.tools.registry import build_registry
from docgemma.transcript import TranscriptMessage, TranscriptReader
from docgemma.ui import untrusted
from docgemma.ui.approval import (
    ApprovalState,
    EditableField,
    edit,
    editable_fields,
    patient_changed,
    show_patient,
)
from docgemma.ui.conversation_tools import clinician_profiles, profiled
from docgemma.ui.ownership import caller, nothing, owner_only
from docgemma.ui.panels import PanelView, redraw
from docgemma.ui.patient_panel import PatientDirectory, PatientPanel
from docgemma.ui.patients import PatientMatch
from docgemma.ui.render import BACKEND_DOWN, LOADING_MODEL, approval_card, start_problem
from docgemma.ui.session import FOREIGN, SessionState
from docgemma.ui.turns import Recorder, decide, user_messages, user_turn
from docgemma.ui.uploads import UploadRejected, parse_submission, vision_notice

log = logging.getLogger(__name__)
BUSY = "Please wait for the current answer to finish."
STALE = (
    "A newer proposal has replaced the one you decided on; nothing was written. "
    "Please review the card as it is now."
)


def _error(text: str) -> Any:
    return gr.update(value=f"⚠️ {text}", visible=True)


def _turn_refused(_: dict[str, Any]) -> tuple[Any, Any, Any]:
    return [], gr.update(), _error(FOREIGN)


async def _no_transcript(thread_id: str) -> list[TranscriptMessage]:
    return []


def _decision_refused(_: dict[str, Any]) -> tuple[Any, str]:
    return [], f"⚠️ {FOREIGN}"


class Handlers:
    def __init__(
        self,
        settings: Settings,
        get_agent: Callable[[], Awaitable[TurnRunner]],
        patients: PatientDirectory | None,
        upload_dir: Path,
        access: Access | None = None,
        agent_ready: Callable[[], bool] = lambda: True,
        record: Recorder | None = None,
        agent_failure: Callable[[], BaseException | None] = lambda: None,
        tools: ToolRegistry | None = None,
        transcript: TranscriptReader | None = None,
    ) -> None:
        self.settings = settings
        self._tools = tools or build_registry()
        """Where a proposed write's argument model comes from (the card's fields, checks)."""
        self._record = record
        """Stores each finished turn in the conversation store (the tenant ``local``)."""
        self.read_transcript: TranscriptReader = transcript or _no_transcript
        """A conversation's stored messages, for its download; none without a store."""
        self._get_agent = get_agent
        self._agent_ready = agent_ready
        self._agent_failure = agent_failure
        self._patients = patients
        self._upload_dir = upload_dir
        self._upload_roots = (Path(get_upload_folder()),)
        """Where the browser's uploads land; a client-sent path elsewhere is never opened."""
        self.access = access or Access(Mode.OPEN)
        self._profiles = clinician_profiles(settings)
        self.patient_panel = PatientPanel(settings, patients, upload_dir)

    def settings_markdown(self) -> str:
        """The server's setup in a clinician's words: which model, which record, whether
        remote sources are called. No paths, URLs, hosts or setting names (those are in the
        server log and ``docs/configuration.md``)."""
        s = self.settings
        network = (
            "🔌 **Offline**: drug labels, literature and trials are not searched online; "
            "answers come from the offline sources shipped with the app"
            if s.offline
            else "🌐 Online: drug labels, literature and trials are searched online"
        )
        record = (
            "the built-in demonstration record (synthetic patients)"
            if self.access.embedded_ehr
            else "your organisation's FHIR record server"
        )
        return (
            f"{network}\n\n- Model: **{s.public_model()}**\n"
            f"- Patient record: {record}\n"
            f"- Thinking before answering: {'on' if s.thinking else 'off'} unless changed below\n"
            f"- Largest image: {s.max_image_bytes / 1e6:.0f} MB\n\n"
            "_The server's administrator sets the defaults; the two settings below apply to "
            "this browser session only._"
        )

    def model_status(self) -> tuple[str, Any]:
        """The first page's line on the model: which one, and whether it is loading, ready or
        cannot load (then why and how to fix it); the timer that refreshes it stops once
        the model is ready."""
        s = self.settings
        model = f"Model: **{s.public_model()}**"
        if self._agent_ready():
            return f"{model} — ready", gr.update(active=False)
        problem = model_problem(s.model, s.model_cache_dir) if s.backend == "llamacpp" else None
        failure = self._agent_failure()
        if problem is None and failure is not None:
            problem = start_problem(failure) or f"{type(failure).__name__} (see the server log)"
        if problem is not None:
            text = f"⚠️ {model} — **the language model cannot load**, so no question can be "
            return text + f"answered: {problem}", gr.update(active=True)
        return f"{model} — loading (the first start takes a minute or two)", gr.update(active=True)

    @owner_only(nothing)
    def set_thinking(
        self, enabled: bool, budget: float, session: SessionState, request: gr.Request | None = None
    ) -> None:
        """The session's thinking switch and budget, used from the next turn on."""
        session.thinking, session.thinking_budget = bool(enabled), int(budget)

    @owner_only(nothing)
    def set_unverified(
        self, enabled: bool, session: SessionState, request: gr.Request | None = None
    ) -> None:
        """The session's switch for the model's unverified answer, from the next turn on."""
        session.show_unverified = bool(enabled)

    def approver(self, typed: str | None, request: gr.Request | None = None) -> str:
        """The signed-in user; only in open demo mode the name typed on the page (unverified).

        The typed name comes with the decision itself, so the record names whoever the page
        showed when Approve or Reject was pressed (blank: the server's default).
        """
        if not self.access.open:
            user = _user(request)
            assert user is not None  # Gradio refuses unauthenticated calls in these modes
            return user
        return untrusted.name(typed or "") or self.settings.clinician_name

    def owns(self, session: SessionState, request: gr.Request | None) -> bool:
        """The caller may see and act in this session (see ``SessionState.claim``)."""
        return session.claim(None if self.access.open else caller(request))

    def signed_in(self, request: gr.Request) -> str:
        if self.access.open:
            return ""
        return f"Signed in as **{_user(request)}**; approvals are recorded under this name."

    # ── chat ──

    @owner_only(_turn_refused)
    async def submit(
        self, message: dict, session: SessionState, request: gr.Request
    ) -> AsyncIterator:
        async for out in self._turn(message, session, request):
            yield out

    @owner_only(_turn_refused)
    async def ask(self, text: str, session: SessionState, request: gr.Request) -> AsyncIterator:
        async for out in self._turn({"text": text, "files": []}, session, request):
            yield out

    async def _turn(
        self, message: Any, session: SessionState, request: gr.Request | None
    ) -> AsyncIterator:
        keep = gr.update()
        if session.busy:
            yield session.history, keep, _error(BUSY)
            return
        try:
            submission = await asyncio.to_thread(  # decoding must not stall other sessions
                parse_submission,
                message,
                self.settings.max_image_bytes,
                self._upload_dir,
                session.attached,
                upload_roots=self._upload_roots,
                max_pixels=self.settings.max_image_pixels,
            )
        except UploadRejected as exc:
            yield session.history, keep, _error(str(exc))
            return
        session.attached = None  # a picked stored image goes with this message only
        cleared, beside = gr.MultimodalTextbox(value=None), gr.update(value="", visible=False)
        shown = session.history + user_messages(submission)
        if not self._agent_ready():  # a visible step, not a silent wait, while the model loads
            shown = [*shown, {"role": "assistant", "content": LOADING_MODEL}]
        yield shown, cleared, beside
        agent = profiled(await self._agent(), session, self._profiles)
        if agent is None:
            yield session.history, keep, _error(self._backend_down())
            return
        notice = vision_notice(submission, agent)
        if notice:  # beside the input from the start of the turn, not only in the answer
            beside = gr.update(value=f"ℹ️ {notice}", visible=True)
            yield shown, cleared, beside
        async for history in user_turn(session, agent, submission, record=self._record):
            yield history, cleared, beside

    async def _agent(self) -> TurnRunner | None:
        try:
            return await self._get_agent()
        except Exception as exc:  # a broken backend must leave the page usable
            log.exception("could not start the agent: %s", exc)
            return None

    def _backend_down(self) -> str:
        """The unavailable-model notice, with why the model could not start when known."""
        failure = self._agent_failure()
        return f"{BACKEND_DOWN} {start_problem(failure) if failure else ''}".strip()

    # ── approval ──

    @owner_only(_decision_refused)
    async def approve(
        self, session: SessionState, key: str, name: str | None, request: gr.Request, *values: str
    ) -> AsyncIterator:
        """Approve the card the clinician saw (``key``) as ``name``, after edits in ``values``."""
        refusal = self._refusal(session, key)
        if refusal:
            yield refusal
            return
        state = session.approval
        model = self._arg_model(state)
        if state.open and model is not None:
            changes = dict(zip(model.model_fields, values, strict=False))
            session.approval = state = edit(state, changes, model)
        if state.error:
            yield session.history, f"⚠️ {state.error}"
            return
        if state.open and patient_changed(state):
            yield session.history, f"⚠️ {await self._new_patient(session)}"
            return
        async for out in self._decide(session, "approve", None, self.approver(name, request)):
            yield out

    @owner_only(_decision_refused)
    async def reject(
        self, session: SessionState, key: str, name: str | None, reason: str, request: gr.Request
    ) -> AsyncIterator:
        refusal = self._refusal(session, key)
        if refusal:
            yield refusal
            return
        approver = self.approver(name, request)
        async for out in self._decide(session, "reject", reason.strip() or None, approver):
            yield out

    def _refusal(self, session: SessionState, key: str) -> tuple[Any, str] | None:
        """Decisions only on the card the owner was shown (``owner_only`` checked the owner)."""
        state = session.approval
        if state.open and state.request is not None and key != state.request.idempotency_key:
            log.warning("refused a decision on a replaced proposal")
            session.approval = replace(state, notice=STALE)
            return session.history, f"⚠️ {STALE}"
        return None

    async def _new_patient(self, session: SessionState) -> str:
        """Name the edited patient on the card; only then may Approve write to them."""
        state = session.approval
        found = await self._card_patient(state.args)
        patient_id = state.args["patient_id"]
        if found is None:
            notice = (
                f"There is no patient with id {patient_id} in the record; "
                "correct the patient id. Nothing was written."
            )
            session.approval = replace(state, notice=notice)
            return notice
        born = f", born {found.birth_date}" if found.birth_date else ""
        notice = (
            f"The patient is now {found.name}{born} ({found.id}). Check the card, "
            "then press Approve again. Nothing was written."
        )
        session.approval = show_patient(state, notice)
        return notice

    async def _decide(
        self, session: SessionState, action: Any, reason: str | None, approver: str
    ) -> AsyncIterator:
        agent = profiled(await self._agent(), session, self._profiles, deciding=True)
        if agent is None:
            yield session.history, f"⚠️ {self._backend_down()}"
            return
        async for history in decide(
            session, agent, action, reason, approved_by=approver, record=self._record
        ):
            yield history, ""

    def open_editor(self) -> Any:
        return gr.Column(visible=True)

    def panels_for(self, view: PanelView) -> Callable[..., Awaitable[dict[Any, Any]]]:
        """The event that redraws ``view`` after each chat event (see ``panels``)."""

        def hidden(arguments: dict[str, Any]) -> dict[Any, Any]:
            return redraw(view, arguments["session"], False, None, None)

        @owner_only(hidden)
        async def panels(session: SessionState, request: gr.Request) -> dict[Any, Any]:
            return await self.panels(view, session, request)

        return panels

    async def panels(
        self, view: PanelView, session: SessionState, request: gr.Request | None
    ) -> dict[Any, Any]:
        """Follow-ups, the attachment note, the approval card and, when a turn made another
        patient active, that patient's chart and images; keyed by component."""
        owned = self.owns(session, request)
        patient_panel = await self.patient_panel.adopted(session) if owned else None
        state = session.approval
        card = None
        if owned and state.open and state.request is not None:
            patient = await self._card_patient(state.args)
            model = self._arg_model(state)
            fields = tuple(model.model_fields) if model is not None else ()
            card = approval_card(state.request, state.args, state.edited, patient, fields)
        return redraw(view, session, owned, card, patient_panel)

    def editor_fields(
        self, session: SessionState, key: str, request: gr.Request | None
    ) -> list[EditableField]:
        """The editor's boxes for the card ``key`` names: the proposed tool's arguments.

        Only the session's owner gets them, and only for the proposal on the card (a
        replaced one gets none). Another user is refused with an error rather than an
        empty editor, so that their call leaves the owner's open editor as it is.
        """
        if not self.owns(session, request):
            raise gr.Error(FOREIGN)
        state = session.approval
        model = self._arg_model(state)
        if not state.open or state.request is None or model is None:
            return []
        if key != state.request.idempotency_key:
            return []
        return editable_fields(state, model)

    def _arg_model(self, state: ApprovalState) -> type[BaseModel] | None:
        """The proposed tool's argument model, from the registry (None for an unknown tool)."""
        if state.request is None or state.request.tool not in self._tools:
            return None
        return self._tools[state.request.tool].args

    async def _card_patient(self, args: dict[str, Any]) -> PatientMatch | None:
        patient_id = args.get("patient_id")
        if not patient_id or self._patients is None:
            return None
        return await self._patients.patient(str(patient_id))


def _user(request: gr.Request | None) -> str | None:
    return caller(request)

"""What each button and box of the page does; Gradio glue over ``turns`` and ``approval``.

No ``from __future__ import annotations`` here: Gradio reads the ``gr.Request``
annotation at run time to inject the caller's session.
"""

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

import gradio as gr
from gradio.utils import get_upload_folder
from pydantic import BaseModel

from docgemma.auth import Access, Mode
from docgemma.config import Settings
from docgemma.ehr.chart import ChartSummary
from docgemma.ehr.client import StoredImage
from docgemma.ehr.ids import is_fhir_id
from docgemma.tools.base import ToolRegistry
from docgemma.tools.registry import build_registry
from docgemma.ui.approval import (
    ApprovalState,
    EditableField,
    edit,
    editable_fields,
    patient_changed,
    show_patient,
)
from docgemma.ui.conversation_tools import clinician_profiles, profiled
from docgemma.ui.panels import PanelView, attachment_note, patient_banner, redraw
from docgemma.ui.patients import EHRUnavailable, PatientMatch, chart_markdown
from docgemma.ui.render import BACKEND_DOWN, LOADING_MODEL, approval_card
from docgemma.ui.session import SessionState, TurnRunner
from docgemma.ui.turns import Recorder, decide, user_messages, user_turn
from docgemma.ui.uploads import Attachment, UploadRejected, accept_image, parse_submission

log = logging.getLogger(__name__)
BUSY = "Please wait for the current answer to finish."
INVALID_PATIENT = "That is not a valid patient id; pick a patient from the search results."
FOREIGN = "This conversation belongs to another signed-in user; nothing was done."
STALE = (
    "A newer proposal has replaced the one you decided on; nothing was written. "
    "Please review the card as it is now."
)


class PatientDirectory(Protocol):
    async def search(self, name: str) -> list[PatientMatch]: ...

    async def chart(self, patient_id: str) -> ChartSummary | None: ...

    async def patient(self, patient_id: str) -> PatientMatch | None: ...

    async def images(self, patient_id: str) -> list[StoredImage]: ...

    async def image(self, media_id: str) -> bytes: ...


def _error(text: str) -> Any:
    return gr.update(value=f"⚠️ {text}", visible=True)


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
        tools: ToolRegistry | None = None,
    ) -> None:
        self.settings = settings
        self._tools = tools or build_registry()
        """Where a proposed write's argument model comes from (the card's fields, checks)."""
        self._record = record
        """Keeps a copy of each finished turn (the API's ``local`` tenant), when given."""
        self._get_agent = get_agent
        self._agent_ready = agent_ready
        self._patients = patients
        self._upload_dir = upload_dir
        self._upload_roots = (Path(get_upload_folder()),)
        """Where the browser's uploads land; a client-sent path elsewhere is never opened."""
        self.access = access or Access(Mode.OPEN)
        self._profiles = clinician_profiles(settings)

    def settings_markdown(self) -> str:
        s = self.settings
        network = (
            "🔌 **Offline** — drug, literature and trial services are not called"
            if s.offline
            else "🌐 Online — remote drug, literature and trial services are used"
        )
        return (
            f"{network}\n\n- Model: **{s.model_summary()}**\n"
            f"- Configuration: `{s.describe_public(self.access.embedded_ehr)}`\n"
            f"- Thinking by default: {'on' if s.thinking else 'off'} "
            f"({s.thinking_delimiters()} delimiters, at least {s.thinking_min_tokens} tokens)\n"
            f"- Upload limit: {s.max_image_bytes / 1e6:.0f} MB per image\n\n"
            "_Server defaults come from `DOCGEMMA_*` environment variables (e.g. "
            "`DOCGEMMA_THINKING=true`, `DOCGEMMA_THINKING_MAX_TOKENS`); the thinking switch "
            "and budget below apply to this browser session only._"
        )

    def set_thinking(self, enabled: bool, budget: float, session: SessionState) -> None:
        """The session's thinking switch and budget, used from the next turn on."""
        session.thinking, session.thinking_budget = bool(enabled), int(budget)

    def approver(self, typed: str | None, request: gr.Request | None = None) -> str:
        """The signed-in user; only in open demo mode the name typed on the page (unverified).

        The typed name comes with the decision itself, so the record names whoever the page
        showed when Approve or Reject was pressed (blank: the server's default).
        """
        if not self.access.open:
            user = _user(request)
            assert user is not None  # Gradio refuses unauthenticated calls in these modes
            return user
        return (typed or "").strip() or self.settings.clinician_name

    def owns(self, session: SessionState, request: gr.Request | None) -> bool:
        """The caller may see and act in this session (see ``SessionState.claim``)."""
        return session.claim(None if self.access.open else _user(request))

    def signed_in(self, request: gr.Request) -> str:
        if self.access.open:
            return ""
        return f"Signed in as **{_user(request)}**; approvals are recorded under this name."

    # ── chat ──

    async def submit(
        self, message: dict, session: SessionState, request: gr.Request
    ) -> AsyncIterator:
        async for out in self._turn(message, session, request):
            yield out

    async def ask(self, text: str, session: SessionState, request: gr.Request) -> AsyncIterator:
        async for out in self._turn({"text": text, "files": []}, session, request):
            yield out

    async def _turn(
        self, message: Any, session: SessionState, request: gr.Request | None
    ) -> AsyncIterator:
        keep = gr.update()
        if not self.owns(session, request):
            yield [], keep, _error(FOREIGN)
            return
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
        cleared, hidden = gr.MultimodalTextbox(value=None), gr.update(value="", visible=False)
        shown = session.history + user_messages(submission)
        if not self._agent_ready():  # a visible step, not a silent wait, while the model loads
            shown = [*shown, {"role": "assistant", "content": LOADING_MODEL}]
        yield shown, cleared, hidden
        agent = profiled(await self._agent(), session, self._profiles)
        if agent is None:
            yield session.history, keep, _error(BACKEND_DOWN)
            return
        async for history in user_turn(session, agent, submission, record=self._record):
            yield history, cleared, hidden

    async def _agent(self) -> TurnRunner | None:
        try:
            return await self._get_agent()
        except Exception:  # a broken backend must leave the page usable
            log.exception("could not start the agent")
            return None

    # ── approval ──

    async def approve(
        self, session: SessionState, key: str, name: str | None, request: gr.Request, *values: str
    ) -> AsyncIterator:
        """Approve the card the clinician saw (``key``) as ``name``, after edits in ``values``."""
        refusal = self._refusal(session, key, request)
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

    async def reject(
        self, session: SessionState, key: str, name: str | None, reason: str, request: gr.Request
    ) -> AsyncIterator:
        refusal = self._refusal(session, key, request)
        if refusal:
            yield refusal
            return
        approver = self.approver(name, request)
        async for out in self._decide(session, "reject", reason.strip() or None, approver):
            yield out

    def _refusal(
        self, session: SessionState, key: str, request: gr.Request | None
    ) -> tuple[Any, str] | None:
        """Decisions only from the session's owner, and only on the card they were shown."""
        if not self.owns(session, request):
            return [], f"⚠️ {FOREIGN}"
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
        agent = profiled(await self._agent(), session, self._profiles)
        if agent is None:
            yield session.history, f"⚠️ {BACKEND_DOWN}"
            return
        async for history in decide(
            session, agent, action, reason, approved_by=approver, record=self._record
        ):
            yield history, ""

    def open_editor(self) -> Any:
        return gr.Column(visible=True)

    def panels_for(self, view: PanelView) -> Callable[..., Awaitable[dict[Any, Any]]]:
        """The event that redraws ``view`` after each chat event (see ``panels``)."""

        async def panels(session: SessionState, request: gr.Request) -> dict[Any, Any]:
            return await self.panels(view, session, request)

        return panels

    async def panels(
        self, view: PanelView, session: SessionState, request: gr.Request | None
    ) -> dict[Any, Any]:
        """Follow-ups, the attachment note, the approval card and, when a turn made another
        patient active, that patient's chart and images; keyed by component."""
        owned = self.owns(session, request)
        patient_panel = await self._adopted_patient(session) if owned else None
        state = session.approval
        card = None
        if owned and state.open and state.request is not None:
            patient = await self._card_patient(state.args)
            card = approval_card(state.request, state.args, state.edited, patient)
        return redraw(view, session, owned, card, patient_panel)

    async def _adopted_patient(self, session: SessionState) -> tuple[str, Any] | None:
        """The chart and image picker of a patient the agent made active (the session has
        only the id); None when the panel already shows the active patient.

        Read once per patient, found or not, so a failed read is not repeated on every
        chat event.
        """
        pid = session.patient_id
        if not pid or pid == session.shown_patient_id or self._patients is None:
            return None
        session.shown_patient_id = pid
        try:
            chart = await self._patients.chart(pid)
        except EHRUnavailable as exc:
            return f"⚠️ {exc}", _image_picker([], str(exc))
        if chart is None:
            return "That patient is no longer in the record.", _image_picker([], "")
        session.patient_name = chart.name
        return chart_markdown(chart), await self._patient_images(session, pid)

    async def _patient_images(self, session: SessionState, patient_id: str) -> Any:
        """The picker of the patient's stored images; the session remembers which they are."""
        try:
            stored = await self._patients.images(patient_id)
        except EHRUnavailable as exc:
            return _image_picker([], str(exc))
        session.image_labels = {img.id: img.label for img in stored}
        info = "Pick one to attach it to your next message." if stored else "No stored images."
        return _image_picker(stored, info)

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

    # ── patient panel ──

    async def search_patients(self, name: str) -> tuple[Any, str]:
        if self._patients is None:
            return gr.Dropdown(choices=[]), "The patient record is not connected."
        if not name.strip():
            return gr.Dropdown(choices=[]), "Type part of a patient's name to search."
        try:
            found = await self._patients.search(name.strip())
        except EHRUnavailable as exc:
            return gr.Dropdown(choices=[]), f"⚠️ {exc}"
        if not found:
            return gr.Dropdown(choices=[], value=None), f"No patient matches '{name.strip()}'."
        choices = [(m.label, m.id) for m in found]
        return gr.Dropdown(
            choices=choices, value=found[0].id
        ), f"{len(found)} match(es); pick one and press **Use this patient**."

    async def select_patient(
        self, patient_id: str | None, session: SessionState, request: gr.Request | None = None
    ) -> tuple[str, str, Any, str]:
        keep = gr.update()
        if not self.owns(session, request):
            return "", f"⚠️ {FOREIGN}", keep, keep
        if not patient_id or self._patients is None:
            return patient_banner(session), "Pick a patient from the matches first.", keep, keep
        if not is_fhir_id(patient_id):
            return patient_banner(session), f"⚠️ {INVALID_PATIENT}", keep, keep
        try:
            chart = await self._patients.chart(patient_id)
        except EHRUnavailable as exc:
            return patient_banner(session), f"⚠️ {exc}", keep, keep
        if chart is None:
            return patient_banner(session), "That patient is no longer in the record.", keep, keep
        session.patient_id, session.patient_name = chart.patient_id, chart.name
        session.shown_patient_id = chart.patient_id
        session.attached, session.image_labels = None, {}
        picker = await self._patient_images(session, chart.patient_id)
        return patient_banner(session), chart_markdown(chart), picker, ""

    async def pick_image(self, media_id: str | None, session: SessionState) -> str:
        """Fetch, check and hold a stored image for the next message, as an upload would be."""
        session.attached = None
        if not media_id or self._patients is None:
            return ""
        label = session.image_labels.get(media_id)
        if label is None:
            return "⚠️ That image is not one of the active patient's."
        try:
            data = await self._patients.image(media_id)
            image, shown = await asyncio.to_thread(
                accept_image,
                data,
                self.settings.max_image_bytes,
                self._upload_dir,
                self.settings.max_image_pixels,
            )
        except (EHRUnavailable, UploadRejected) as exc:
            return f"⚠️ {exc}"
        session.attached = Attachment(image=image, image_path=str(shown), label=label)
        return attachment_note(session)

    def clear_patient(
        self, session: SessionState, request: gr.Request | None = None
    ) -> tuple[str, str, Any, Any, str]:
        if not self.owns(session, request):
            return "", f"⚠️ {FOREIGN}", gr.update(), gr.update(), ""
        session.patient_id, session.patient_name = None, ""
        session.shown_patient_id = None
        session.patient_cleared = True
        session.attached, session.image_labels = None, {}
        return (
            patient_banner(session),
            "",
            gr.Dropdown(choices=[], value=None),
            _image_picker([], "Select a patient to see their stored images."),
            "",
        )


def _user(request: gr.Request | None) -> str | None:
    return getattr(request, "username", None) or None


def _image_picker(stored: list[StoredImage], info: str) -> Any:
    return gr.update(choices=[(img.label, img.id) for img in stored], value=None, info=info)

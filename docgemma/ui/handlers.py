"""What each button and box of the page does; Gradio glue over ``turns`` and ``approval``.

No ``from __future__ import annotations`` here: Gradio reads the ``gr.Request``
annotation at run time to inject the caller's session.
"""

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import gradio as gr

from docgemma.config import Settings
from docgemma.ehr.chart import ChartSummary
from docgemma.ehr.client import StoredImage
from docgemma.ui.approval import edit, field_labels
from docgemma.ui.conversation_tools import clinician_profiles, profiled
from docgemma.ui.patients import EHRUnavailable, PatientMatch, chart_markdown
from docgemma.ui.render import BACKEND_DOWN, approval_card
from docgemma.ui.session import SessionState, TurnRunner
from docgemma.ui.turns import decide, user_messages, user_turn
from docgemma.ui.uploads import Attachment, UploadRejected, accept_image, parse_submission

log = logging.getLogger(__name__)
MAX_FIELDS = 6
BUSY = "Please wait for the current answer to finish."


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
    ) -> None:
        self.settings = settings
        self._get_agent = get_agent
        self._patients = patients
        self._upload_dir = upload_dir
        self._profiles = clinician_profiles(settings)

    def settings_markdown(self) -> str:
        s = self.settings
        network = (
            "🔌 **Offline** — drug, literature and trial services are not called"
            if s.offline
            else "🌐 Online — remote drug, literature and trial services are used"
        )
        return (
            f"{network}\n\n- Configuration: `{s.describe()}`\n"
            f"- Thinking by default: {'on' if s.thinking else 'off'} "
            f"({s.thinking_family} delimiters, at least {s.thinking_min_tokens} tokens)\n"
            f"- Upload limit: {s.max_image_bytes / 1e6:.0f} MB per image\n\n"
            "_Server defaults come from `DOCGEMMA_*` environment variables (e.g. "
            "`DOCGEMMA_THINKING=true`, `DOCGEMMA_THINKING_MAX_TOKENS`); the thinking switch "
            "and budget below apply to this browser session only._"
        )

    def set_thinking(self, enabled: bool, budget: float, session: SessionState) -> None:
        """The session's thinking switch and budget, used from the next turn on."""
        session.thinking, session.thinking_budget = bool(enabled), int(budget)

    def set_clinician(self, name: str, session: SessionState) -> None:
        """Who this session's approvals are recorded as (blank: the server's default)."""
        session.clinician_name = (name or "").strip()

    def approver(self, session: SessionState) -> str:
        return session.clinician_name or self.settings.clinician_name

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
        if session.busy:
            yield session.history, keep, _error(BUSY)
            return
        try:
            submission = parse_submission(
                message, self.settings.max_image_bytes, self._upload_dir, session.attached
            )
        except UploadRejected as exc:
            yield session.history, keep, _error(str(exc))
            return
        session.attached = None  # a picked stored image goes with this message only
        cleared, hidden = gr.MultimodalTextbox(value=None), gr.update(value="", visible=False)
        yield (
            session.history + user_messages(submission),
            cleared,
            hidden,
        )  # shown while the model loads
        agent = profiled(await self._agent(), session, self._profiles)
        if agent is None:
            yield session.history, keep, _error(BACKEND_DOWN)
            return
        session_hash = request.session_hash if request is not None else None
        async for history in user_turn(session, agent, submission, session_hash):
            yield history, cleared, hidden

    async def _agent(self) -> TurnRunner | None:
        try:
            return await self._get_agent()
        except Exception:  # a broken backend must leave the page usable
            log.exception("could not start the agent")
            return None

    # ── approval ──

    async def approve(self, session: SessionState, *values: str) -> AsyncIterator:
        state = session.approval
        if state.open:
            changes = dict(zip(_editable(state.args), values, strict=False))
            session.approval = state = edit(state, changes)
        if state.error:
            yield session.history, f"⚠️ {state.error}"
            return
        async for out in self._decide(session, "approve", None):
            yield out

    async def reject(self, session: SessionState, reason: str) -> AsyncIterator:
        async for out in self._decide(session, "reject", reason.strip() or None):
            yield out

    async def _decide(
        self, session: SessionState, action: Any, reason: str | None
    ) -> AsyncIterator:
        agent = profiled(await self._agent(), session, self._profiles)
        if agent is None:
            yield session.history, f"⚠️ {BACKEND_DOWN}"
            return
        async for history in decide(
            session, agent, action, reason, approved_by=self.approver(session)
        ):
            yield history, ""

    def open_editor(self) -> Any:
        return gr.Column(visible=True)

    async def panels(self, session: SessionState) -> list[Any]:
        """Follow-ups, the attachment note and the approval card, redrawn after each event."""
        ups = session.follow_ups
        picker = gr.update() if session.attached else gr.update(value=None)
        out: list[Any] = [_attachment_note(session), picker, gr.Row(visible=bool(ups))]
        out += [
            gr.Button(value=ups[i], visible=True) if i < len(ups) else gr.Button(visible=False)
            for i in range(3)
        ]
        state = session.approval
        if not state.open or state.request is None:
            return (
                out
                + [gr.Group(visible=False), gr.update(), "", gr.Column(visible=False)]
                + [gr.Textbox(visible=False)] * MAX_FIELDS
            )
        labels = field_labels(state.request.tool)
        keys = _editable(state.args)
        out += [
            gr.Group(visible=True),
            approval_card(
                state.request, state.args, state.edited, await self._card_patient(state.args)
            ),
            f"⚠️ {state.error}" if state.error else "",
            gr.Column(visible=bool(state.error)),
        ]
        out += [
            gr.Textbox(
                label=labels.get(keys[i], keys[i]), value=_text(state.args[keys[i]]), visible=True
            )
            if i < len(keys)
            else gr.Textbox(visible=False)
            for i in range(MAX_FIELDS)
        ]
        return out

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
        self, patient_id: str | None, session: SessionState
    ) -> tuple[str, str, Any, str]:
        keep = gr.update()
        if not patient_id or self._patients is None:
            return _banner(session), "Pick a patient from the matches first.", keep, keep
        try:
            chart = await self._patients.chart(patient_id)
        except EHRUnavailable as exc:
            return _banner(session), f"⚠️ {exc}", keep, keep
        if chart is None:
            return _banner(session), "That patient is no longer in the record.", keep, keep
        session.patient_id, session.patient_name = chart.patient_id, chart.name
        session.attached, session.image_labels = None, {}
        try:
            stored = await self._patients.images(chart.patient_id)
        except EHRUnavailable as exc:
            return _banner(session), chart_markdown(chart), _image_picker([], str(exc)), ""
        session.image_labels = {img.id: img.label for img in stored}
        info = "Pick one to attach it to your next message." if stored else "No stored images."
        return _banner(session), chart_markdown(chart), _image_picker(stored, info), ""

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
            image, shown = accept_image(data, self.settings.max_image_bytes, self._upload_dir)
        except (EHRUnavailable, UploadRejected) as exc:
            return f"⚠️ {exc}"
        session.attached = Attachment(image=image, image_path=str(shown), label=label)
        return _attachment_note(session)

    def clear_patient(self, session: SessionState) -> tuple[str, str, Any, Any, str]:
        session.patient_id, session.patient_name = None, ""
        session.patient_cleared = True
        session.attached, session.image_labels = None, {}
        return (
            _banner(session),
            "",
            gr.Dropdown(choices=[], value=None),
            _image_picker([], "Select a patient to see their stored images."),
            "",
        )


def _banner(session: SessionState) -> str:
    if not session.patient_id:
        return "No active patient."
    return f"**Active patient:** {session.patient_name} (`{session.patient_id}`)"


def _attachment_note(session: SessionState) -> str:
    if session.attached is None:
        return ""
    return f"📎 **{session.attached.label}** will be attached to your next message."


def _image_picker(stored: list[StoredImage], info: str) -> Any:
    return gr.update(choices=[(img.label, img.id) for img in stored], value=None, info=info)


def _editable(args: dict[str, Any]) -> list[str]:
    return list(args)[:MAX_FIELDS]


def _text(value: Any) -> str:
    return "" if value is None else str(value)

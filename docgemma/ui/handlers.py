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
from docgemma.ui.approval import edit, field_labels
from docgemma.ui.patients import EHRUnavailable, PatientMatch, chart_markdown
from docgemma.ui.render import BACKEND_DOWN, approval_card
from docgemma.ui.session import SessionState, TurnRunner
from docgemma.ui.turns import decide, user_messages, user_turn
from docgemma.ui.uploads import UploadRejected, parse_submission

log = logging.getLogger(__name__)
MAX_FIELDS = 6
BUSY = "Please wait for the current answer to finish."


class PatientDirectory(Protocol):
    async def search(self, name: str) -> list[PatientMatch]: ...

    async def chart(self, patient_id: str) -> ChartSummary | None: ...


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
            submission = parse_submission(message, self.settings.max_image_bytes, self._upload_dir)
        except UploadRejected as exc:
            yield session.history, keep, _error(str(exc))
            return
        cleared, hidden = gr.MultimodalTextbox(value=None), gr.update(value="", visible=False)
        yield (
            session.history + user_messages(submission),
            cleared,
            hidden,
        )  # shown while the model loads
        agent = await self._agent()
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
        agent = await self._agent()
        if agent is None:
            yield session.history, f"⚠️ {BACKEND_DOWN}"
            return
        async for history in decide(session, agent, action, reason):
            yield history, ""

    def open_editor(self) -> Any:
        return gr.Column(visible=True)

    def panels(self, session: SessionState) -> list[Any]:
        """Follow-up buttons and the approval card, redrawn from the session after each event."""
        ups = session.follow_ups
        out: list[Any] = [gr.Row(visible=bool(ups))]
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
            approval_card(state.request, state.args, state.edited),
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
    ) -> tuple[str, str]:
        if not patient_id or self._patients is None:
            return _banner(session), "Pick a patient from the matches first."
        try:
            chart = await self._patients.chart(patient_id)
        except EHRUnavailable as exc:
            return _banner(session), f"⚠️ {exc}"
        if chart is None:
            return _banner(session), "That patient is no longer in the record."
        session.patient_id, session.patient_name = chart.patient_id, chart.name
        return _banner(session), chart_markdown(chart)

    def clear_patient(self, session: SessionState) -> tuple[str, str, Any]:
        session.patient_id, session.patient_name = None, ""
        session.patient_cleared = True
        return _banner(session), "", gr.Dropdown(choices=[], value=None)


def _banner(session: SessionState) -> str:
    if not session.patient_id:
        return "No active patient."
    return f"**Active patient:** {session.patient_name} (`{session.patient_id}`)"


def _editable(args: dict[str, Any]) -> list[str]:
    return list(args)[:MAX_FIELDS]


def _text(value: Any) -> str:
    return "" if value is None else str(value)

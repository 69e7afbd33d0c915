"""The panels redrawn after every chat event: the active patient, follow-ups, the attachment
note, the approval card.

Updates go out keyed by component (Gradio maps a ``{component: update}`` return onto the
event's outputs and leaves the others as they are), so the order of the outputs list
cannot drift from what the handler returns. The card's editable fields are not here:
``layout`` renders them from the proposal's argument model (``gr.render``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import gradio as gr

from docgemma.ui.session import SessionState
from docgemma.ui.untrusted import plain

FOLLOW_UPS = 3
"""How many suggested follow-up questions the page has buttons for."""


@dataclass(frozen=True)
class PanelView:
    """The components the panels step redraws; ``outputs`` lists them for the event."""

    patient_banner: gr.Markdown
    """Whom the conversation is about; a turn can change it (a patient found by name)."""
    attachment_note: gr.Markdown
    image_picker: gr.Dropdown
    chart: gr.Markdown
    """The active patient's chart; redrawn when a turn makes another patient active."""
    follow_row: gr.Row
    follow_ups: tuple[gr.Button, ...]
    card: gr.Group
    card_text: gr.Markdown
    card_error: gr.Markdown
    editor: gr.Column
    card_key: gr.Textbox
    """The idempotency key of the proposal on the card; its change redraws the editor."""

    def outputs(self) -> list[Any]:
        flat: list[Any] = []
        for item in (getattr(self, f.name) for f in fields(self)):
            flat.extend(item if isinstance(item, tuple) else [item])
        return flat


def redraw(
    view: PanelView,
    session: SessionState,
    owned: bool,
    card_text: str | None,
    patient_panel: tuple[str, Any] | None = None,
) -> dict[Any, Any]:
    """Every panel as the session stands; ``card_text`` is the approval card, None for none.

    ``patient_panel``: the chart and the image picker of a patient just made active, None
    to leave both as they are. A caller that does not own the session sees nothing of it
    (no follow-ups, no note, no card).
    """
    ups = session.follow_ups[:FOLLOW_UPS] if owned else []
    picker = gr.update() if session.attached else gr.update(value=None)
    chart = gr.update()
    if patient_panel is not None:
        chart, picker = patient_panel
    out: dict[Any, Any] = {
        view.patient_banner: patient_banner(session) if owned else patient_banner(None),
        view.attachment_note: attachment_note(session) if owned else "",
        view.image_picker: picker,
        view.chart: chart,
        view.follow_row: gr.update(visible=bool(ups)),
    }
    for i, button in enumerate(view.follow_ups):
        out[button] = (
            gr.update(value=ups[i], visible=True) if i < len(ups) else gr.update(visible=False)
        )
    state = session.approval
    if card_text is None or state.request is None:
        return out | {
            view.card: gr.update(visible=False),
            view.card_error: "",
            view.editor: gr.update(visible=False),
            view.card_key: "",
        }
    problem = state.error or state.notice
    return out | {
        view.card: gr.update(visible=True),
        view.card_text: card_text,
        view.card_error: f"⚠️ {problem}" if problem else "",
        view.editor: gr.update(visible=bool(problem)),  # keep the editor open to fix it
        view.card_key: state.request.idempotency_key,
    }


def attachment_note(session: SessionState) -> str:
    if session.attached is None:
        return ""
    return f"📎 **{plain(session.attached.label)}** will be attached to your next message."


def patient_banner(session: SessionState | None) -> str:
    if session is None or not session.patient_id:
        return "No active patient."
    name = plain(session.patient_name) or "name not loaded"
    return f"**Active patient:** {name} (`{session.patient_id}`)"

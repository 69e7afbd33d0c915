"""Per-browser-session state.

Gradio deep-copies a ``gr.State`` default for every session. The thread id is a
random secret made on first use and never derived from anything a client sends or
can read: Gradio takes any session hash a client presents, so a thread id built from
it (and shown in a Provenance) once let a stranger continue someone's conversation.
A session also belongs to the user who first used it; another signed-in user who
presents its hash is refused. ``history`` is the chat view's messages (answers, the
reasoning timeline, images), kept server side; the chatbot only displays it. What was
said is stored in the conversation store (``api.local_tenant``), which the download and
the API read.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from docgemma.ehr.ids import is_fhir_id
from docgemma.ui.approval import ApprovalState
from docgemma.ui.uploads import Attachment

FOREIGN = "This conversation belongs to another signed-in user; nothing was done."
"""What another signed-in user is told when they act in a session they do not own."""


@dataclass
class SessionState:
    thread_id: str = ""
    patient_id: str | None = None
    patient_name: str = ""
    patient_cleared: bool = False
    """The clinician cleared the patient; the next turn tells the agent to forget it."""
    history: list[dict[str, Any]] = field(default_factory=list)
    approval: ApprovalState = field(default_factory=ApprovalState)
    follow_ups: list[str] = field(default_factory=list)
    turns: int = 0
    busy: bool = False
    """A turn or an approval is streaming; new submissions wait for it."""
    thinking: bool | None = None
    """Thinking before the answer for this session; None: the server's setting."""
    thinking_budget: int | None = None
    """Maximum thinking tokens for this session; None: the server's setting."""
    show_unverified: bool = False
    """When no source answers, add the model's own answer, labelled unverified."""
    profile: str | None = None
    """The expert profile chosen for this session; None: the default agent."""
    approval_profile: str | None = None
    """The profile whose run proposed the pending write; the decision resumes under it."""
    attached: Attachment | None = None
    """A stored patient image picked for the next message."""
    image_labels: dict[str, str] = field(default_factory=dict)
    """The active patient's stored images offered in the picker, id → label."""
    shown_patient_id: str | None = None
    """The patient whose chart and images the side panel shows (one read per patient)."""
    owner: str | None = None
    """The signed-in user this session belongs to (None in open demo mode)."""
    claimed: bool = False

    def patient_for_turn(self) -> str | None:
        """The selection to send with a turn: an id, ``""`` once after Clear, else None."""
        if self.patient_id:
            return self.patient_id
        if self.patient_cleared:
            self.patient_cleared = False
            return ""
        return None

    def follow_patient(self, patient_id: str | None) -> None:
        """Take the agent's active patient after a turn (one it found by name), so the panel
        and the next turn agree with the agent. None keeps the selection: replies written
        before the graph runs (an empty message, say) know no patient. The id comes from
        record data, so anything that is not a FHIR id is ignored."""
        if patient_id is None or patient_id == self.patient_id or not is_fhir_id(patient_id):
            return
        self.patient_id, self.patient_name = patient_id, ""
        self.attached, self.image_labels = None, {}

    def record_changed(self, patient_id: object) -> None:
        """A write to this patient's record was saved: the side panel reads the chart again
        (a new prescription shows at once, not after the next patient change)."""
        if patient_id is not None and patient_id == self.shown_patient_id:
            self.shown_patient_id = None

    def thread(self) -> str:
        if not self.thread_id:
            self.thread_id = secrets.token_urlsafe(32)
        return self.thread_id

    def claim(self, user: str | None) -> bool:
        """True when ``user`` may act in this session: its first user, and only them."""
        if not self.claimed:
            self.owner, self.claimed = user, True
        return self.owner == user

    def next_turn_id(self) -> str:
        self.turns += 1
        return f"t{self.turns}"


def new_session() -> SessionState:
    """A fresh session (tests and scripts). The page's ``gr.State`` holds a plain
    ``SessionState()`` that Gradio deep-copies per browser session: a factory there
    would be a load event any client could replay to wipe someone's session."""
    return SessionState()

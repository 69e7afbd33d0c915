"""Per-session state: which patient selection a turn sends to the agent."""

from __future__ import annotations

from docgemma.ui.session import SessionState


def test_patient_selection_sent_with_each_turn() -> None:
    session = SessionState()
    assert session.patient_for_turn() is None  # nothing chosen: the agent keeps its own
    session.patient_id = "abc-123"
    assert session.patient_for_turn() == "abc-123"
    session.patient_id, session.patient_cleared = None, True  # what Clear does
    assert session.patient_for_turn() == ""  # tell the agent to forget it, once
    assert session.patient_for_turn() is None

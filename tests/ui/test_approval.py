"""The approval state machine: one decision per proposal, edits validated."""

from __future__ import annotations

from ui_fakes import PRESCRIPTION

from docgemma.tools.registry import build_registry
from docgemma.ui.approval import (
    ApprovalState,
    Phase,
    edit,
    editable_fields,
    patient_changed,
    propose,
    settle,
    show_patient,
    submit,
)

PRESCRIBE = build_registry()["prescribe_medication"].args


def proposed() -> ApprovalState:
    return propose(ApprovalState(), PRESCRIPTION)


def test_nothing_to_submit_without_a_proposal():
    state, decision = submit(ApprovalState(), "approve")
    assert decision is None and state.phase == Phase.IDLE


def test_approve_once_then_double_click_is_ignored():
    state, first = submit(proposed(), "approve")
    assert first is not None and first.action == "approve" and first.args is None
    assert state.phase == Phase.SUBMITTING
    again, second = submit(state, "approve")
    assert second is None and again is state
    _, late_reject = submit(state, "reject")
    assert late_reject is None


def test_settled_proposal_cannot_be_resubmitted():
    state, decision = submit(proposed(), "approve")
    done = settle(state, decision, ok=True)
    assert done.phase == Phase.APPROVED
    assert submit(done, "approve")[1] is None


def test_reject_carries_the_reason_and_settles_as_rejected():
    state, decision = submit(proposed(), "reject", reason="wrong dose")
    assert decision.action == "reject" and decision.reason == "wrong dose"
    assert settle(state, decision, ok=True).phase == Phase.REJECTED


def test_failed_write_is_recorded():
    state, decision = submit(proposed(), "approve")
    assert settle(state, decision, ok=False).phase == Phase.FAILED


def test_edit_turns_approve_into_an_edit_decision_with_the_new_args():
    state = edit(proposed(), {"dosage": " 850 mg ", "notes": ""}, PRESCRIBE)
    assert state.edited and state.error is None and state.args["dosage"] == "850 mg"
    assert state.args["notes"] is None
    _, decision = submit(state, "approve")
    assert decision.action == "edit" and decision.args["dosage"] == "850 mg"
    assert decision.args["medication_name"] == "metformin"


def test_unchanged_edit_is_a_plain_approve():
    state = edit(proposed(), {"dosage": "500 mg"}, PRESCRIBE)
    assert not state.edited
    assert submit(state, "approve")[1].action == "approve"


def test_invalid_edit_is_refused_with_a_readable_message_and_blocks_approve():
    state = edit(proposed(), {"dosage": ""}, PRESCRIBE)
    assert state.error and "dosage: this field is required" in state.error
    assert state.args["dosage"] == "500 mg"
    assert submit(state, "approve")[1] is None
    assert submit(state, "reject")[1].action == "reject"
    fixed = edit(state, {"dosage": "1 g"}, PRESCRIBE)
    assert fixed.error is None and submit(fixed, "approve")[1].args["dosage"] == "1 g"


def test_a_new_proposal_reopens_the_card():
    state, decision = submit(proposed(), "reject")
    state = propose(settle(state, decision, ok=True), PRESCRIPTION)
    assert state.open and not state.edited


def test_edits_after_submission_are_ignored():
    state, _ = submit(proposed(), "approve")
    assert edit(state, {"dosage": "1 g"}, PRESCRIBE) is state


def test_the_editor_has_exactly_the_tools_arguments_with_the_values_as_they_stand():
    fields = editable_fields(proposed(), PRESCRIBE)
    assert [f.name for f in fields] == [
        "patient_id",
        "medication_name",
        "dosage",
        "frequency",
        "route",
        "duration",
        "notes",
    ]
    by_name = {f.name: f for f in fields}
    assert by_name["medication_name"].label == "Medication name"
    assert by_name["dosage"].value == "500 mg" and by_name["notes"].value == ""
    assert by_name["dosage"].hint == "Dose with unit, e.g. 500 mg"
    edited = edit(proposed(), {"dosage": "850 mg"}, PRESCRIBE)
    assert {f.name: f.value for f in editable_fields(edited, PRESCRIBE)}["dosage"] == "850 mg"


def test_an_edit_cannot_add_an_argument_the_tool_does_not_take():
    state = edit(proposed(), {"dosage": "1 g", "infusion_rate": "fast"}, PRESCRIBE)
    assert state.error is None and "infusion_rate" not in state.args
    assert state.args["dosage"] == "1 g"


def test_every_decision_carries_the_proposals_key():
    _, approved = submit(proposed(), "approve")
    _, rejected = submit(proposed(), "reject", "no")
    assert approved.idempotency_key == rejected.idempotency_key == PRESCRIPTION.idempotency_key


def test_a_changed_patient_must_be_shown_before_approve():
    state = edit(proposed(), {"patient_id": "p2"}, PRESCRIBE)
    assert patient_changed(state)
    blocked, decision = submit(state, "approve")
    assert decision is None and blocked is state  # not approvable yet
    _, rejected = submit(state, "reject")
    assert rejected is not None  # rejecting needs no second look
    shown = show_patient(state, "The patient is now Jo Roe")
    assert not patient_changed(shown) and shown.notice == "The patient is now Jo Roe"
    _, decision = submit(shown, "approve")
    assert decision.action == "edit" and decision.args["patient_id"] == "p2"

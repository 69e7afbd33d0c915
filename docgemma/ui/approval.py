"""The clinician-approval state machine behind the approval card.

Pure and immutable: every transition returns a new ``ApprovalState``. ``submit``
hands out an ``ApprovalDecision`` at most once per proposal, so a double click on
Approve (or Approve then Reject) can never reach the agent twice; edits are checked
against the tool's own argument model (its ``ToolSpec.args``, passed in by the caller,
which reads it from the registry) before they can be approved. An edited patient
id is not approvable until the card has shown that patient (``show_patient``), and
every decision carries its proposal's idempotency key, so the agent refuses it if a
newer proposal has taken its place.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from docgemma.agent.outcome import ApprovalDecision, ApprovalRequest


class Phase(StrEnum):
    IDLE = "idle"
    PROPOSED = "proposed"
    SUBMITTING = "submitting"
    APPROVED = "approved"
    REJECTED = "rejected"
    FAILED = "failed"


@dataclass(frozen=True)
class ApprovalState:
    phase: Phase = Phase.IDLE
    request: ApprovalRequest | None = None
    args: dict[str, Any] = field(default_factory=dict)
    """The arguments as they stand, including the clinician's edits."""
    edited: bool = False
    error: str | None = None
    """A clinician-readable problem with the last edit, shown on the card."""
    shown_patient: str | None = None
    """The patient id whose name and birth date the card has shown the clinician."""
    notice: str | None = None
    """Why the last click did not decide (the patient changed, a newer proposal); shown."""

    @property
    def open(self) -> bool:
        return self.phase == Phase.PROPOSED


def propose(state: ApprovalState, request: ApprovalRequest) -> ApprovalState:
    """A new proposal replaces whatever came before (each turn proposes afresh)."""
    return ApprovalState(
        phase=Phase.PROPOSED,
        request=request,
        args=dict(request.args),
        shown_patient=request.args.get("patient_id"),
    )


def patient_changed(state: ApprovalState) -> bool:
    """An edit moved the write to a patient the card has not yet named."""
    return "patient_id" in state.args and state.args["patient_id"] != state.shown_patient


def show_patient(state: ApprovalState, notice: str) -> ApprovalState:
    """The card now names the edited patient; the next Approve may go ahead."""
    return replace(state, shown_patient=state.args.get("patient_id"), notice=notice)


def edit(state: ApprovalState, changes: dict[str, Any], model: type[BaseModel]) -> ApprovalState:
    """Apply edited field values; invalid values keep the previous arguments and set ``error``.

    Only the argument model's own fields can be edited; anything else in ``changes`` is
    ignored, so a client cannot add arguments the tool does not take.
    """
    if not state.open or state.request is None:
        return state
    fields = model.model_fields
    typed = {k: (v.strip() if isinstance(v, str) else v) for k, v in changes.items() if k in fields}
    merged = {k: (None if v == "" else v) for k, v in {**state.args, **typed}.items()}
    try:
        merged = model.model_validate(merged).model_dump()
    except ValidationError as exc:
        return replace(state, error=_explain(exc, model))
    original = {**dict.fromkeys(fields), **state.request.args}
    return replace(state, args=merged, edited=merged != original, error=None)


def submit(
    state: ApprovalState,
    action: Literal["approve", "reject"],
    reason: str | None = None,
    approved_by: str = "clinician",
) -> tuple[ApprovalState, ApprovalDecision | None]:
    """Turn a click into a decision, once. Later clicks get ``None`` and change nothing."""
    if not state.open or state.request is None:
        return state, None
    if action == "approve" and (state.error or patient_changed(state)):
        return state, None
    signed = {"approved_by": approved_by, "idempotency_key": state.request.idempotency_key}
    if action == "reject":
        decision = ApprovalDecision(action="reject", reason=reason, **signed)
    elif state.edited:
        decision = ApprovalDecision(action="edit", args=dict(state.args), **signed)
    else:
        decision = ApprovalDecision(action="approve", **signed)
    return replace(state, phase=Phase.SUBMITTING), decision


def settle(state: ApprovalState, decision: ApprovalDecision, ok: bool) -> ApprovalState:
    """Record how the submitted decision ended."""
    if state.phase != Phase.SUBMITTING:
        return state
    if not ok:
        return replace(state, phase=Phase.FAILED)
    return replace(state, phase=Phase.REJECTED if decision.action == "reject" else Phase.APPROVED)


@dataclass(frozen=True)
class EditableField:
    """One box of the card's editor: an argument of the proposed tool and its current value."""

    name: str
    label: str
    value: str
    hint: str | None = None


def editable_fields(state: ApprovalState, model: type[BaseModel]) -> list[EditableField]:
    """The editor's boxes: every field of the tool's argument model, in its order, with the
    value as it stands (the proposal's, or the clinician's last valid edit)."""
    return [
        EditableField(
            name=name,
            label=name.replace("_", " ").capitalize(),
            value="" if state.args.get(name) is None else str(state.args[name]),
            hint=info.description,
        )
        for name, info in model.model_fields.items()
    ]


def _explain(exc: ValidationError, model: type[BaseModel]) -> str:
    parts = []
    for err in exc.errors():
        name = ".".join(str(p) for p in err["loc"]) or model.__name__
        # a cleared box reaches the model as None; say what is wrong in the card's terms
        problem = "this field is required" if err.get("input") is None else err["msg"].lower()
        parts.append(f"{name.replace('_', ' ')}: {problem}")
    return "Please check the edited fields — " + "; ".join(parts)

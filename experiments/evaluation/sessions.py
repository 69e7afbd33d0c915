"""Multi-turn sessions: ``data/eval/sessions.jsonl``, one conversation per line.

A session is a list of turns sent one after another on one API session, each with what a
good reply does: the tools it calls (and, for a proposed write, the arguments the approval
shows), the patient it must be about, the facts it must state, what it must never say,
whether it must ask back or refuse, and — for a turn that proposes a record write — whether
the clinician approves or rejects it. ``select_patient`` sends the API's ``patient_id``
(the app's patient picker); ``continues`` marks a turn that only makes sense with the
turns before it (continuity is scored on those). Every session records its split.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from experiments.cases import Fact, load_jsonl
from experiments.evaluation.cases import Route
from experiments.evaluation.split import Split

SESSIONS_PATH = Path(__file__).resolve().parents[2] / "data" / "eval" / "sessions.jsonl"


class SessionTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message: str = Field(min_length=1)
    select_patient: str | None = None
    """Sent as the request's ``patient_id`` (``""`` clears the active patient)."""
    expected_route: Route | None = None
    expected_tools: list[str] = Field(default_factory=list)
    optional_tools: list[str] = Field(default_factory=list)
    expected_args: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Checked on a proposed write (the approval shows its arguments)."""
    patient: str | None = None
    """The patient this turn must be about (no other patient named, a write for this one)."""
    continues: bool = False
    must_ask: bool = False
    must_refuse: bool = False
    key_facts: list[Fact] = Field(default_factory=list)
    must_not_contain: list[str] = Field(default_factory=list)
    approval: Literal["approve", "reject"] | None = None
    """The clinician's decision on the write this turn proposes."""
    approval_reason: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> SessionTurn:
        stray = set(self.expected_args) - set(self.expected_tools)
        if stray:
            raise ValueError(f"arguments given for tools not expected: {sorted(stray)}")
        return self


class Session(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    theme: str
    """What the session exercises (continuity, switch, correction, typos, ...)."""
    split: Split
    turns: list[SessionTurn] = Field(min_length=1)


def load_sessions(path: Path = SESSIONS_PATH, split: Split | None = None) -> list[Session]:
    sessions = load_jsonl(path, Session)
    return sessions if split is None else [s for s in sessions if s.split == split]

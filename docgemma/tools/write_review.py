"""What code found when it checked a proposed record write against the chart.

A write tool may declare a review (``ToolSpec.review``): before the clinician is asked
to approve, the agent runs it and the approval card shows its findings beside the
fields. The review states what it checked as well as what it found, so "nothing found"
and "not checked" never look alike.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

FindingKind = Literal["interaction", "allergy", "cross_reactivity", "duplicate", "renal", "chart"]
Severity = Literal["warning", "caution", "info"]
"""``warning``: stop and think before approving; ``caution``: weigh it; ``info``: context."""

SEVERITY_ORDER: dict[str, int] = {"warning": 0, "caution": 1, "info": 2}


class Finding(BaseModel):
    """One thing the clinician should see before approving, in clinician terms."""

    kind: FindingKind
    severity: Severity
    title: str
    """One line: what meets what, and what to do ("check the INR")."""
    detail: str = ""
    source: str | None = None
    """Where the statement comes from (a reference, the chart); None for the chart itself."""


class WriteReview(BaseModel):
    """The check of one proposed write: what was looked at, and what was found."""

    checked: str
    """What the check read, e.g. "2 active medications (warfarin, metoprolol), 1 allergy
    (sulfamethoxazole), latest eGFR"; says so when the chart could not be read."""
    findings: list[Finding] = Field(default_factory=list)

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    def ordered(self) -> list[Finding]:
        """Warnings first, then cautions, then context, each group in the order found."""
        return sorted(self.findings, key=lambda f: SEVERITY_ORDER[f.severity])

    def account(self) -> str:
        """What was read and each finding that is more than context, in one paragraph."""
        flagged = [f"⚠ {f.title}." for f in self.ordered() if f.severity != "info"]
        return " ".join([self.checked, *(flagged or ["Nothing to flag."])])

    def headline(self) -> str:
        """One line for the timeline: how many of each, or that nothing was found."""
        counts = {s: sum(1 for f in self.findings if f.severity == s) for s in SEVERITY_ORDER}
        found = ", ".join(f"{n} {s}{'s' if n > 1 else ''}" for s, n in counts.items() if n)
        return found or "nothing found"


def not_checked(reason: str) -> WriteReview:
    """The review of a write whose check could not run: the card says nothing was checked,
    rather than showing no findings."""
    return WriteReview(
        checked=f"Not checked against the chart: {reason}.",
        findings=[
            Finding(
                kind="chart",
                severity="warning",
                title=f"Not checked against the chart: {reason}",
                detail=(
                    "Interactions with the patient's medications, allergies and kidney "
                    "function were not checked; check them before approving."
                ),
            )
        ],
    )

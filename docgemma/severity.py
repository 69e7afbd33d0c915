"""The three NHS-style severities of the triage mode and what each tells the patient to do."""

from __future__ import annotations

from enum import StrEnum


class Severity(StrEnum):
    """Ordered from least to most urgent; ``rank`` compares them."""

    SELF_CARE = "Self-care"
    URGENT_PRIMARY_CARE = "Urgent Primary Care"
    A_AND_E = "A&E"

    @property
    def rank(self) -> int:
        return list(Severity).index(self)

    @property
    def action(self) -> str:
        return ACTIONS[self]

    @property
    def colour(self) -> str:
        return COLOURS[self]


ACTIONS: dict[Severity, str] = {
    Severity.SELF_CARE: (
        "You can usually look after this yourself at home; a pharmacist can advise on "
        "medicines. See a GP if it gets worse or does not improve."
    ),
    Severity.URGENT_PRIMARY_CARE: (
        "Contact your GP surgery today for an urgent appointment, or call NHS 111 "
        "if the surgery is closed."
    ),
    Severity.A_AND_E: "Call 999 or go to A&E now.",
}
COLOURS: dict[Severity, str] = {
    Severity.SELF_CARE: "#1b7a3a",
    Severity.URGENT_PRIMARY_CARE: "#b35c00",
    Severity.A_AND_E: "#b00020",
}


def most_urgent(*severities: Severity | None) -> Severity | None:
    """The most urgent of the given severities (None when none is given)."""
    known = [s for s in severities if s is not None]
    return max(known, key=lambda s: s.rank) if known else None

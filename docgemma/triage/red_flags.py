"""The red-flag table applied to what a patient wrote: the rows that carry patient advice.

The table itself, shared with the clinician agent, is ``docgemma.red_flags``. Here the
patient's form details (a baby under 3 months, pregnancy) become the table's facts, a
fired row becomes the advice and the severity floor no model can lower.
"""

from __future__ import annotations

from dataclasses import dataclass

from docgemma.red_flags.match import matches
from docgemma.red_flags.rule import Fact
from docgemma.red_flags.table import RULES
from docgemma.severity import Severity, most_urgent
from docgemma.triage.demographics import AgeBand, Demographics

PATIENT_RULES = tuple(rule for rule in RULES if rule.patient is not None)
"""The rows a patient's words can fire; rows only clinicians describe (a lab value) are left
out."""


@dataclass(frozen=True)
class FiredRule:
    rule_id: str
    title: str
    advice: str
    severity: Severity
    evidence: tuple[str, ...]
    """The patient's own words that matched."""

    def reasoning_line(self) -> str:
        quoted = ", ".join(f"“{e}”" for e in self.evidence)
        return (
            f"Red-flag rule `{self.rule_id}` fired ({self.title}; matched {quoted}) "
            f"→ {self.severity.value}."
        )


def facts(demographics: Demographics) -> set[Fact]:
    """The table's facts the patient's form details establish."""
    known: set[Fact] = set()
    if demographics.pregnant:
        known.add(Fact.PREGNANT)
    if demographics.age_band is AgeBand.UNDER_3_MONTHS:
        known.add(Fact.YOUNG_INFANT)
    return known


def check(text: str, demographics: Demographics | None = None) -> list[FiredRule]:
    """Every row the patient's words fire, most urgent first."""
    fired = []
    for match in matches(text, facts(demographics or Demographics()), PATIENT_RULES):
        advice = match.rule.patient
        assert advice is not None  # PATIENT_RULES holds only rows with advice
        fired.append(
            FiredRule(match.rule.id, advice.title, advice.advice, advice.severity, match.evidence)
        )
    return sorted(fired, key=lambda f: -f.severity.rank)


def floor(fired: list[FiredRule]) -> Severity | None:
    """The least urgent severity the fired rules allow (None when no rule fired)."""
    return most_urgent(*(f.severity for f in fired))


def enforce(predicted: Severity | None, fired: list[FiredRule]) -> Severity | None:
    """The model's severity raised to the rules' floor: the rules win when they are more urgent."""
    return most_urgent(predicted, floor(fired))

"""The shape of one row of the red-flag table."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from docgemma.severity import Severity


class Fact(StrEnum):
    """A patient detail a row may depend on. A caller that knows it from elsewhere (the
    triage form's pregnancy box) passes it in; otherwise the words in ``cues.FACT_WORDS``
    must state it ("28 weeks pregnant", "a 6-week-old")."""

    PREGNANT = "pregnant"
    YOUNG_INFANT = "under 3 months old"


@dataclass(frozen=True)
class Absent:
    """A cue that holds when ``pattern`` is not said (un-negated) anywhere in the text: what
    turns a finding into a normal one ("black, sticky" stools are melaena, unless they are
    a newborn's meconium)."""

    pattern: str


Cue = str | Fact | Absent
"""A lower-case regular expression over normalised text, a patient detail, or what must
not be said."""
Trigger = tuple[Cue, ...]
"""Cues that must all hold (un-negated) for the trigger to fire."""


@dataclass(frozen=True)
class PatientAdvice:
    """What the triage mode tells a patient whose words match the row."""

    title: str
    """What was recognised, in plain words, as shown in the reasoning panel."""
    advice: str
    """What the patient must do now."""
    severity: Severity = Severity.A_AND_E


@dataclass(frozen=True)
class RedFlagRule:
    """A presentation a clinician must not miss: the conditions to exclude before any
    other explanation, and what to do first. A row fires when every cue of one of its
    ``triggers`` holds."""

    id: str
    presentation: str
    """The presentation in clinical words, e.g. "Sudden severe (thunderclap) headache"."""
    exclude: tuple[str, ...]
    """The conditions to exclude first, most dangerous first."""
    first: str
    """What to do first, as a clinician would write it."""
    triggers: tuple[Trigger, ...]
    patient: PatientAdvice | None = None
    """The triage mode's advice; None for a row only clinicians describe (a lab value)."""

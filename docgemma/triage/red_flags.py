"""Matching the red-flag table against what the patient wrote, with negation handled.

A match is negated when a negation cue ("no", "not", "without", "never", "don't" ...)
appears in the few words before it within the same clause; clauses end at sentence
punctuation and at "but"/"however"/"although". Deterministic and fast: it runs on
every message before the model and again on the model's prediction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from docgemma.triage.demographics import Demographics
from docgemma.triage.red_flag_rules import RULES, RedFlagRule
from docgemma.triage.severity import Severity, most_urgent

NEGATION_CUES = frozenset(
    {
        "no",
        "not",
        "never",
        "without",
        "denies",
        "deny",
        "none",
        "don't",
        "doesn't",
        "didn't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "haven't",
        "hasn't",
        "hadn't",
        "nor",
        "neither",
    }
)
NEGATION_WINDOW = 5
"""Words before a match that a negation cue may sit in."""
_CLAUSE_END = re.compile(r"[.;!?\n]|\b(but|however|although|though|except)\b")
_WORD = re.compile(r"[a-z']+")


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


def normalise(text: str) -> str:
    return text.lower().replace("’", "'").replace("‘", "'").replace("cannot", "can't")


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _negated(text: str, start: int) -> bool:
    before = text[:start]
    clause_starts = [m.end() for m in _CLAUSE_END.finditer(before)]
    clause = before[clause_starts[-1] :] if clause_starts else before
    words = _WORD.findall(clause)[-NEGATION_WINDOW:]
    return any(w in NEGATION_CUES for w in words)


def _affirmed(text: str, pattern: str) -> str | None:
    """The first un-negated match of ``pattern`` in ``text``, or None."""
    for match in _compiled(pattern).finditer(text):
        if not _negated(text, match.start()):
            return match.group(0).strip()
    return None


def _fires(rule: RedFlagRule, text: str) -> tuple[str, ...] | None:
    for trigger in rule.triggers:
        evidence = [_affirmed(text, group) for group in trigger]
        if all(evidence):
            return tuple(e for e in evidence if e)
    return None


def check(text: str, demographics: Demographics | None = None) -> list[FiredRule]:
    """Every rule the patient's words fire, most urgent first."""
    demographics = demographics or Demographics()
    norm = normalise(text)
    fired = []
    for rule in RULES:
        if rule.needs is not None and not rule.needs(demographics):
            continue
        evidence = _fires(rule, norm)
        if evidence is not None:
            fired.append(FiredRule(rule.id, rule.title, rule.advice, rule.severity, evidence))
    return sorted(fired, key=lambda f: -f.severity.rank)


def floor(fired: list[FiredRule]) -> Severity | None:
    """The least urgent severity the fired rules allow (None when no rule fired)."""
    return most_urgent(*(f.severity for f in fired))


def enforce(predicted: Severity | None, fired: list[FiredRule]) -> Severity | None:
    """The model's severity raised to the rules' floor: the rules win when they are more urgent."""
    return most_urgent(predicted, floor(fired))

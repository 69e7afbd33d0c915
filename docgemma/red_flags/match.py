"""Matching the red-flag table against free text, with negations handled.

A cue is negated when a negation cue ("no", "not", "denies", "without" ...) appears in
the few words before it within the same clause; clauses end at sentence punctuation and
at "but"/"however"/"although". So "denies chest pain, SOB or palpitations" fires
nothing, while "no fever, but a stiff neck" still finds the stiff neck. Deterministic
and fast: it runs on every message before any model call.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import cache

from docgemma.red_flags.cues import FACT_WORDS
from docgemma.red_flags.rule import Absent, Cue, Fact, RedFlagRule
from docgemma.red_flags.table import RULES

VERB_NEGATIONS = frozenset(
    {
        "not",
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
    }
)
"""Negations of a verb ("not on treatment", "doesn't smoke"): unlike "no" or "denies", which
head a list ("no fever, rash or neck stiffness"), they deny their own phrase, so a comma
ends them unless the list goes on with "or"/"nor" ("not tachycardic, hypoxic or
hypotensive"). "Not on ART, dry cough" keeps the cough."""
NEGATION_CUES = VERB_NEGATIONS | frozenset(
    {
        "no",
        "never",
        "without",
        "denies",
        "denied",
        "deny",
        "denying",
        "none",
        "negative",
        "nor",
        "neither",
    }
)
_LIST_GOES_ON = re.compile(r"\b(?:or|nor)\b")
NEGATION_WINDOW = 5
"""Words before a match that a negation cue may sit in."""
VALUE_NEGATION_WINDOW = 1
"""The same for a match that holds a measured value ("HR 130", "temp 38.4"): a reading is
denied only by a negation right before it, so "not herself, temp 38.4" keeps the fever
that "no rash, HR 130" or "no temp 38" would otherwise lose or gain."""
_CLAUSE_END = re.compile(r"[.;!?\n]|\b(?:but|however|although|though|except|now)\b")
_WORD = re.compile(r"[a-z0-9']+")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Match:
    """A row that fired, with the words that fired it."""

    rule: RedFlagRule
    evidence: tuple[str, ...]
    """The matched words of the text (a fact given by the caller adds none)."""


_BARE_NOT = re.compile(r"\b(do|does|did|ca|wo|is|are|was|were|could|would|should|has|have|had)nt\b")
"""A contraction typed without its apostrophe ("dont", "doesnt", "cant")."""


def normalise(text: str) -> str:
    """Lower case, one apostrophe, and "cannot" and the contractions typed without an
    apostrophe ("dont blanch") written as the cues write them ("can't", "don't")."""
    text = text.lower().replace("’", "'").replace("‘", "'").replace("cannot", "can't")
    return _BARE_NOT.sub(r"\1n't", text)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """Every pattern comes from a fixed table (this one's cues, the harmful-request rules):
    about 470 of them, compiled once each. A bounded cache smaller than the tables would
    recompile them all on every message."""
    return re.compile(pattern)


def _negated(text: str, start: int, window: int = NEGATION_WINDOW) -> bool:
    before = text[:start]
    clause_starts = [m.end() for m in _CLAUSE_END.finditer(before)]
    clause = before[clause_starts[-1] :] if clause_starts else before
    words = _WORD.findall(clause)[-window:]
    if not any(w in NEGATION_CUES for w in words):
        return False
    if "," not in clause:
        return True
    last, listed = clause.rsplit(",", 1)
    words_before_comma = _WORD.findall(last)
    nearest = next((w for w in reversed(words_before_comma) if w in NEGATION_CUES), None)
    if any(w in NEGATION_CUES for w in _WORD.findall(listed)) or nearest not in VERB_NEGATIONS:
        return True
    return bool(_LIST_GOES_ON.search(text[start : start + 80].split(",")[0] + listed))


def unnegated(text: str) -> str:
    """``text`` without the words a negation denies, by the rule cues are negated by: a word
    within ``NEGATION_WINDOW`` words after a negation cue, in the same clause ("not like
    his usual heartburn" keeps "like his usual heartburn" out)."""
    kept: list[str] = []
    for clause in _CLAUSE_END.split(normalise(text)):
        since = NEGATION_WINDOW + 1
        for word in _WORD.findall(clause):
            since = 0 if word in NEGATION_CUES else since + 1
            if since > NEGATION_WINDOW:
                kept.append(word)
    return " ".join(kept)


def affirmed(text: str, pattern: str) -> str | None:
    """The first un-negated match of ``pattern`` in normalised ``text``, or None."""
    for match in _compiled(pattern).finditer(text):
        window = VALUE_NEGATION_WINDOW if _DIGIT.search(match.group(0)) else NEGATION_WINDOW
        if match.group(0).strip() and not _negated(text, match.start(), window):
            return match.group(0).strip()
    return None


def _holds(cue: Cue, text: str, facts: Collection[Fact]) -> str | None:
    """The evidence for one cue: its words, "" for a fact the caller gave or for words not
    said that must not be, None if it does not hold."""
    if isinstance(cue, Absent):
        return None if affirmed(text, cue.pattern) else ""
    if isinstance(cue, Fact):
        return "" if cue in facts else affirmed(text, FACT_WORDS[cue])
    return affirmed(text, cue)


def fires(rule: RedFlagRule, text: str, facts: Collection[Fact] = ()) -> tuple[str, ...] | None:
    """The evidence of the first trigger of ``rule`` that holds in normalised ``text``."""
    for trigger in rule.triggers:
        evidence = [_holds(cue, text, facts) for cue in trigger]
        if all(e is not None for e in evidence):
            return tuple(dict.fromkeys(e for e in evidence if e))
    return None


_AGE_UNIT = r"(?:yo|y/o|y|yrs?|years?|months?|mo|weeks?|wks?|days?)"
_SEX = r"(?:f|m|female|male|woman|man|girl|boy|lady|gentleman)"
_WHO_THE_PATIENT_IS = re.compile(
    rf"(?:aged |an? )?\d+(?:\.\d+)?\s*-?\s*(?:{_AGE_UNIT}(?:[ -]old)?\s*{_SEX}?|{_SEX})"
    rf"|(?:an? |the |this |young |older |elderly |pregnant |old )*(?:{_SEX}|baby|infant|child"
    r"|toddler|teenager|newborn|neonate|patient|pt|elderly|older (?:adult|person|people))"
    r"(?: aged \d+| in (?:her|his|their) \d0s)?"
    r"|aged \d+|in (?:her|his|their) \d0s"
)
"""Words that say who the patient is ("24F", "a 70-year-old man", "baby"): a cue they match
says nothing of the presentation."""


def partly_fires(rule: RedFlagRule, text: str) -> str | None:
    """The words of the first cue of ``rule`` written as words (not a fact or an absence)
    that hold in normalised ``text`` and say more than who the patient is, or None: the
    row's own words for a case that fires it only in part. A case that says what any of
    the row's triggers must not ("for several years") gives none: fired in part, the row
    has no other words to outweigh it."""
    if any(isinstance(c, Absent) and affirmed(text, c.pattern) for t in rule.triggers for c in t):
        return None
    for trigger in rule.triggers:
        for cue in trigger:
            if not isinstance(cue, str):
                continue
            words = affirmed(text, cue)
            if words and not _WHO_THE_PATIENT_IS.fullmatch(words):
                return words
    return None


def matches(
    text: str, facts: Collection[Fact] = (), rules: Iterable[RedFlagRule] = RULES
) -> list[Match]:
    """Every row ``text`` fires, in table order; ``facts`` are details known from elsewhere."""
    norm = normalise(text)
    found = []
    for rule in rules:
        evidence = fires(rule, norm, facts)
        if evidence is not None:
            found.append(Match(rule, evidence))
    return found

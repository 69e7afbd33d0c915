"""The clinician's pick among the patients a name search listed.

When a name matches several records, the answer lists them and asks for the ID or the
date of birth. The reply ("The one born in 1945.", "the second", "jwilson-1945") is read
here by code against the listed records: a model reading it sent the birth year to the
condition pages. A pick that fits exactly one listed record makes it the active patient;
anything else leaves the choice to the clinician. Pure code, no model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from docgemma.agent.entities import patient_ids
from docgemma.agent.small_talk import VOCABULARY
from docgemma.agent.small_talk import words as message_words

_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_DATE = re.compile(r"\b(1[89]\d\d|20\d\d)-(\d\d)-(\d\d)\b")
_ORDINALS = {
    "first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2,
    "fourth": 3, "4th": 3, "fifth": 4, "5th": 4,
}  # fmt: skip
_LAST = frozenset({"last", "latter"})
_PICKING = frozenset(
    {"one", "born", "in", "on", "dob", "date", "of", "birth", "id", "patient", "pt", "who",
     "was", "is", "mean", "meant", "want", "pick", "choose", "take", "select", "that",
     "male", "female", "man", "woman", "mr", "mrs", "ms", "older", "younger", *_LAST,
     *_ORDINALS}
)  # fmt: skip
"""Words of a reply that only picks a listed patient, besides greetings and fillers."""


def _year(candidate: Mapping[str, Any]) -> str:
    return str(candidate.get("birth_date") or "")[:4]


def chosen_patient(
    message: str, candidates: Sequence[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    """The one listed record the message picks, by its ID, its date of birth, its year of
    birth or its place in the list; None when the message picks none or several."""
    if len(candidates) < 2:
        return None
    typed = {i.lower() for i in patient_ids(message)}
    picks = [c for c in candidates if str(c["patient_id"]).lower() in typed]
    if not picks:
        dates = {m.group(0) for m in _DATE.finditer(message)}
        picks = [c for c in candidates if str(c.get("birth_date") or "") in dates]
    if not picks:
        years = set(_YEAR.findall(message))
        picks = [c for c in candidates if _year(c) in years]
    if not picks:
        words = message_words(message)
        places = {_ORDINALS[w] for w in words if w in _ORDINALS}
        places |= {len(candidates) - 1 for w in words if w in _LAST}
        picks = [candidates[p] for p in places if p < len(candidates)]
    return picks[0] if len(picks) == 1 else None


def only_picks(message: str, candidate: Mapping[str, Any]) -> bool:
    """The message says which patient and nothing more: no question to answer yet."""
    name = {w for w in message_words(str(candidate.get("name") or ""))}
    chosen = {str(candidate["patient_id"]).lower(), *message_words(str(candidate["patient_id"]))}
    for word in message_words(message):
        if word in _PICKING or word in VOCABULARY or word in name or word in chosen:
            continue
        if word.isdigit():  # the year, the day or the month of the date of birth
            continue
        return False
    return True

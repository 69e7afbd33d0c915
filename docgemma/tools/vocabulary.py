"""The closed vocabularies of the record writes: note type, frequency, route, allergy severity.

A field with a closed vocabulary takes one of its values and nothing else: the argument
schema the model fills lists them (an enum under constrained decoding), and the agent
sets the field to the value the clinician's own words state, or to the vocabulary's
default when they state none (``docgemma.agent.dictation``). Each value comes with the
ways clinicians say it ("BID", "twice a day", "b.i.d."), so a clinician's edit on the
approval card is read the same way as the message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from docgemma.ehr import codes


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """The values of one closed field, the phrases that state each, and its default."""

    name: str
    said_as: dict[str, tuple[str, ...]]
    """Each value and the other phrases that state it (the value itself always does)."""
    default: str | None = None
    """The value when the clinician states none; ``None``: the field is left empty, or, when
    it is required, the clinician is asked."""
    _pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _by_phrase: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_phrase = {_fold(p): v for v, phrases in self.said_as.items() for p in (v, *phrases)}
        longest = sorted(by_phrase, key=len, reverse=True)  # "every 6 hours as needed" first
        alternatives = "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in longest)
        object.__setattr__(self, "_by_phrase", by_phrase)
        object.__setattr__(
            self, "_pattern", re.compile(rf"(?<![\w&])(?:{alternatives})(?![\w&])", re.I)
        )

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(self.said_as)

    def stated(self, text: str) -> list[str]:
        """The values the text states, in the order it states them, once each."""
        found = (self._by_phrase[_fold(m.group(0))] for m in self._pattern.finditer(_plain(text)))
        return list(dict.fromkeys(found))

    def normalize(self, value: Any) -> Any:
        """A value written any way the vocabulary knows ("BID") as its value ("twice daily");
        anything else unchanged, for the schema to refuse."""
        if not isinstance(value, str):
            return value
        return self._by_phrase.get(_fold(_plain(value)), value)


_DOTS = re.compile(r"(?<=\b[a-z])\.(?=[a-z]\b)|(?<=\b[a-z]\.[a-z])\.", re.I)
"""The dots of "b.i.d." and "q.h.s.", removed so the abbreviation reads as one word."""


def _plain(text: str) -> str:
    return _DOTS.sub("", text)


def _fold(text: str) -> str:
    return " ".join(text.lower().split())


def _hours(n: int, *words: str) -> tuple[str, ...]:
    """How "every n hours" is written: q6h, q6hr, every 6h..."""
    said = ("every {n} hours", "q{n}h", "q {n}h", "q{n}hr", "q{n} hours", "every {n}h")
    return (*(s.format(n=n) for s in said), *words)


NOTE_TYPE = Vocabulary(
    "note type",
    {
        "progress": ("progress note", "follow-up note", "follow up note"),
        "consult": ("consult note", "consultation", "consultation note"),
        "procedure": ("procedure note", "operative note", "op note"),
        "discharge": ("discharge note", "discharge summary"),
        "history and physical": ("h&p", "h and p", "admission note"),
    },
    default="progress",
)
"""Note types the record codes (``codes.NOTE_TYPES``); a note the clinician gives no type
is a progress note."""
assert set(NOTE_TYPE.values) <= set(codes.NOTE_TYPES)

_PRN = ("prn", "as needed", "as required", "when required", "if needed")
FREQUENCY = Vocabulary(
    "frequency",
    {
        "once daily": ("daily", "qd", "od", "once a day", "every day", "once per day", "1x daily"),
        "twice daily": ("bid", "bd", "twice a day", "two times daily", "2 times daily", "2x daily"),
        "three times daily": ("tid", "tds", "three times a day", "3 times daily", "3x daily"),
        "four times daily": ("qid", "qds", "four times a day", "4 times daily", "4x daily"),
        "every 4 hours": _hours(4, "4 hourly", "4-hourly"),
        "every 6 hours": _hours(6, "6 hourly", "6-hourly"),
        "every 8 hours": _hours(8, "8 hourly", "8-hourly"),
        "every 12 hours": _hours(12, "12 hourly", "12-hourly"),
        **{
            f"every {n} hours as needed": tuple(f"{h} {p}" for h in _hours(n) for p in _PRN)
            for n in (4, 6, 8)
        },
        "every morning": ("qam", "in the morning", "each morning", "once every morning"),
        "at bedtime": ("qhs", "nightly", "once nightly", "at night", "every night", "hs"),
        "once weekly": ("weekly", "once a week", "every week"),
        "as needed": _PRN,
        "once": ("stat", "single dose", "one dose", "once only"),
    },
)
"""Dosing frequencies. No default: a prescription whose frequency the clinician did not
give is asked about, never guessed."""

ROUTE = Vocabulary(
    "route",
    {
        "oral": ("po", "by mouth", "orally", "per os"),
        "intravenous": ("iv", "intravenously"),
        "intramuscular": ("im", "intramuscularly"),
        "subcutaneous": ("sc", "subcut", "subq", "sub-q", "subcutaneously"),
        "sublingual": ("sl", "under the tongue"),
        "inhaled": ("inh", "inhaler", "nebulised", "nebulized", "by inhalation"),
        "topical": ("topically", "applied to the skin"),
        "rectal": ("pr", "per rectum", "rectally"),
        "transdermal": ("patch", "transdermally"),
    },
)
"""Routes of administration (SNOMED CT in ``codes.ROUTES``). No default: a route the
clinician did not give is not written (the dose form decides it, not the assistant)."""
assert set(ROUTE.values) <= set(codes.ROUTES)

SEVERITY = Vocabulary(
    "allergy severity",
    {"mild": (), "moderate": (), "severe": ("life-threatening", "life threatening")},
)
"""FHIR's reaction severities. No default: a severity nobody stated is not recorded."""

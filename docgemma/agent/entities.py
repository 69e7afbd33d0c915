"""Deterministic entity extraction for input assembly.

The model misses drug names 44% of the time, so drugs are matched against the
dictionary shipped in ``drug-named-entity-recognition`` (20,070 drugs, ~107k names:
generic, brand and synonyms, brands resolved to generics). The dictionary is read
once into a token index keyed by first word, so matching a message is a single
pass over its words (well under 10 ms).
"""

from __future__ import annotations

import bz2
import logging
import pickle
import re
import threading
from dataclasses import dataclass
from importlib import resources

log = logging.getLogger(__name__)

UUID_RE = re.compile(r"\b[a-f0-9]{8}(?:-[a-f0-9]{4}){3}-[a-f0-9]{12}\b", re.IGNORECASE)
SHORT_ID_RE = re.compile(r"\b[a-z]{2,20}-\d{3,6}\b", re.IGNORECASE)
"""Record ids such as ``abc-123``, ``dnguyen-005`` or ``jwilson-1945`` (letters, hyphen,
three to six digits); ``covid-19`` or ``icd-10`` have too few digits to be one."""
NUMBER_ID_RE = re.compile(
    r"\b(?:patient|pt|mrn|id)\.?\s*(?:#|no\.?|number|id:?)?\s*#?(\d{3,10})\b"
    r"(?!\s*(?:years?|yrs?|yo|y/o|kg|mg|mcg|g|ml|mmhg|%|days?|weeks?|months?|hours?)\b)",
    re.IGNORECASE,
)
"""A record id of digits only, where the message says it is one ("patient 5521", "MRN
#100234"); a bare number is a dose, a year or a lab value."""
JOINED_ID_RE = re.compile(
    r"\b(?:patient|pt|mrn|id)\.?\s*(?:id:?)?\s*#?([a-z]{2,20})(\d{3,6})\b", re.IGNORECASE
)
"""A short record id typed without its hyphen where the message says it is one ("pt
abc123"): the same letters and digits as ``abc-123``, the only form records have."""
ACTION_VERBS = (
    "prescribe",
    "document",
    "check",
    "search",
    "save",
    "find",
    "record",
    "write",
    "order",
    "verify",
    "add",
    "look up",
    "review",
    "start",
    "analyze",
    "analyse",
)
_ACTION_RE = re.compile(
    r"\b(" + "|".join(re.escape(v) for v in ACTION_VERBS) + r")\b", re.IGNORECASE
)
_WORD_RE = re.compile(r"[a-z0-9][a-z0-9\-']*", re.IGNORECASE)
SHORTHAND: dict[str, str] = {
    **dict.fromkeys(
        ["the pill", "combined pill", "contraceptive pill", "birth control pill",
         "birth control pills", "cocp", "ocp", "ocps"],
        "ethinylestradiol",
    ),
    **dict.fromkeys(
        ["mini pill", "mini-pill", "progestogen-only pill", "progestogen only pill"],
        "levonorgestrel",
    ),
    "hrt": "hormone replacement therapy",
}  # fmt: skip
"""What clinicians call a medicine in passing, which the dictionary's generic, brand and
synonym names leave out, mapped to a substance the dictionary and the interaction reference
both know where one does (the combined pill's oestrogen, a progestogen-only pill's
progestogen), else the dictionary's own name."""
_MAX_NAME_WORDS = 6
_MIN_NAME_CHARS = 3


def patient_ids(text: str) -> list[str]:
    """UUIDs, short record identifiers (``abc-123``, ``dnguyen-005``, or "pt abc123"
    without its hyphen) and numbers said to be a patient's ("patient 5521"), once each."""
    found = [m.group(0) for m in UUID_RE.finditer(text)]
    found += [m.group(0) for m in SHORT_ID_RE.finditer(text)]
    found += [f"{m.group(1)}-{m.group(2)}".lower() for m in JOINED_ID_RE.finditer(text)]
    found += [m.group(1) for m in NUMBER_ID_RE.finditer(text)]
    return list(dict.fromkeys(found))


def action_verbs(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1).lower() for m in _ACTION_RE.finditer(text)))


@dataclass(frozen=True)
class DrugDictionary:
    """Drug names by their first word: ``{"warfarin": {("warfarin",): "warfarin"}}``."""

    index: dict[str, dict[tuple[str, ...], str]]
    names: int

    @classmethod
    def load(cls) -> DrugDictionary:
        from drug_named_entity_recognition.util import stopwords

        path = resources.files("drug_named_entity_recognition") / "drug_ner_dictionary.pkl.bz2"
        with path.open("rb") as raw, bz2.open(raw) as fh:
            data = pickle.load(fh)  # noqa: S301 - the package's own bundled data file
        index: dict[str, dict[tuple[str, ...], str]] = {}
        count = 0
        for variant, canonicals in data["drug_variant_to_canonical"].items():
            words = tuple(w.lower() for w in _WORD_RE.findall(variant))
            if not words or len(words) > _MAX_NAME_WORDS or not canonicals:
                continue
            if len(words) == 1 and (len(words[0]) < _MIN_NAME_CHARS or words[0] in stopwords):
                continue
            index.setdefault(words[0], {})[words] = canonicals[0]
            count += 1
        for name, generic in SHORTHAND.items():
            words = tuple(w.lower() for w in _WORD_RE.findall(name))
            index.setdefault(words[0], {})[words] = generic
        return cls(index=index, names=count + len(SHORTHAND))

    def find(self, text: str) -> list[str]:
        """Generic names of the drugs mentioned, longest match first at each position."""
        words = [w.lower() for w in _WORD_RE.findall(text)]
        found: list[str] = []
        i = 0
        while i < len(words):
            candidates = self.index.get(words[i])
            matched = 0
            if candidates:
                for n in range(min(_MAX_NAME_WORDS, len(words) - i), 0, -1):
                    generic = candidates.get(tuple(words[i : i + n]))
                    if generic:
                        found.append(generic)
                        matched = n
                        break
            i += matched or 1
        return list(dict.fromkeys(found))


_dictionary: DrugDictionary | None = None
_lock = threading.Lock()


def drug_dictionary() -> DrugDictionary:
    """The process-wide dictionary, loaded on first use (a few seconds, once)."""
    global _dictionary
    with _lock:
        if _dictionary is None:
            _dictionary = DrugDictionary.load()
            log.info("drug dictionary loaded: %d names", _dictionary.names)
        return _dictionary

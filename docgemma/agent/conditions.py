"""Condition names, so code can tell a condition from a drug in an extracted argument.

Asked for "the FDA warnings for dofetilide, its interaction with azithromycin, and
trials in atrial fibrillation", a model may put "atrial fibrillation" in the interaction
check's drug list and "dofetilide" in the trial search's condition. The drug
dictionary (``entities``) knows drugs; this knows conditions: the descriptions and
inclusion terms of ICD-10-CM's disease and symptom chapters (1–18, codes A00–R99;
poisonings and external causes are left out, they name drugs), read from the 2026
tabular list that the ``simple-icd-10-cm`` package ships. About 37,000 phrases.

A text names a condition when a run of its words appears, in order, in one of those
phrases and at least one of the words is specific: "atrial fibrillation", "type 2
diabetes", "heart failure" do; "chronic", "left" or "disease" alone do not.
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass
from importlib import metadata

log = logging.getLogger(__name__)

DISTRIBUTION = "simple-icd-10-cm"
TABULAR_FILE = "simple_icd_10_cm/data/icd10c-tabular-April-1-2026.xml"
"""Read from the installed package, never imported: importing it parses this file (~1.5 s)."""
_FIRST_LEFT_OUT_CHAPTER = re.compile(r"<chapter>\s*<name>19</name>")
_DESC = re.compile(r"<desc>([^<]*)</desc>")
_INCLUSION = re.compile(r"<inclusionTerm>(.*?)</inclusionTerm>", re.DOTALL)
_NOTE = re.compile(r"<note>([^<]*)</note>")
_HEAD_END = re.compile(r"[,(\[]")
_ABBREVIATION = re.compile(r"\[([^\]]+)\]")
_QUALIFIER = re.compile(r"\([^)]*\)")
_SHORT_PHRASE_WORDS = 2
_MIN_CHARS = 4
_WORD = re.compile(r"[a-z0-9]+")
_MAX_WORDS = 6
SPECIFIC_SHARE = 0.02
"""A word in more than this share of the phrases ("chronic", "disease", "left") names no
condition by itself."""
CLINICAL_WORD_PHRASES = 20
"""How many condition names a word must be in to count as clinical vocabulary."""
_CONNECTORS_TEXT = "a an the and or of in on for with without to from by at due"
_CONNECTORS = frozenset(_CONNECTORS_TEXT.split())
"""Words a condition name does not begin or end with."""


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


@dataclass(frozen=True)
class ConditionNames:
    phrases: tuple[str, ...]
    """Each description or inclusion term as `` word word … `` (spaces at both ends)."""
    postings: dict[str, tuple[int, ...]]
    """Word → the phrases it occurs in."""
    heads: frozenset[str]
    """What a phrase names before its first qualifier ("Pneumonia, unspecified organism":
    "pneumonia"), bracketed abbreviations ("[COPD]") and the last word of a short phrase
    ("Essential (primary) hypertension"): the only one-word names."""
    diagnoses: frozenset[str] = frozenset()
    """One-word diagnoses: a description that is one word before its first comma, once its
    qualifiers are removed ("Pneumonia, unspecified organism", "Asthma", "Sepsis, …"). Stricter
    than ``heads``, which also holds "patient" and "active": these name a condition in prose."""

    @classmethod
    def load(cls) -> ConditionNames:
        path = metadata.distribution(DISTRIBUTION).locate_file(TABULAR_FILE)
        text = path.read_bytes().decode("utf-8")
        cut = _FIRST_LEFT_OUT_CHAPTER.search(text)
        kept = text[: cut.start()] if cut else text
        found = _DESC.findall(kept)
        descriptions = len(found)
        found += [n for block in _INCLUSION.findall(kept) for n in _NOTE.findall(block)]
        phrases = tuple(dict.fromkeys(f" {' '.join(_words(p))} " for p in found if _words(p)))
        postings: dict[str, list[int]] = {}
        for i, phrase in enumerate(phrases):
            for word in set(phrase.split()):
                postings.setdefault(word, []).append(i)
        heads = {" ".join(_words(_HEAD_END.split(p, 1)[0])) for p in found}
        heads |= {" ".join(_words(a)) for p in found for a in _ABBREVIATION.findall(p)}
        short = (_words(_QUALIFIER.sub(" ", p)) for p in found)
        heads |= {
            w[-1]
            for w in short
            if 0 < len(w) <= _SHORT_PHRASE_WORDS and not _CONNECTORS & set(w) and w[-1].isalpha()
        }
        firsts = (
            _words(_QUALIFIER.sub(" ", _ABBREVIATION.sub(" ", p)).split(",")[0])
            for p in found[:descriptions]
        )
        diagnoses = {
            w[0] for w in firsts if len(w) == 1 and w[0].isalpha() and len(w[0]) >= _MIN_CHARS
        }
        postings_by_word = {w: tuple(ids) for w, ids in postings.items()}
        return cls(phrases, postings_by_word, frozenset(heads), frozenset(diagnoses))

    def clinical_word(self, word: str) -> bool:
        """A word of clinical vocabulary ("syndrome", "fever", "asthma"), never part of a
        person's name: a one-word diagnosis, or a word of ``CLINICAL_WORD_PHRASES`` condition
        names or more. Surnames that name a condition (Wilson, Graves, Parkinson) are in
        fewer."""
        return word in self.diagnoses or len(self.postings.get(word, ())) >= CLINICAL_WORD_PHRASES

    def _specific(self, word: str) -> bool:
        return len(self.postings.get(word, ())) <= SPECIFIC_SHARE * len(self.phrases)

    def _is_name(self, span: list[str]) -> bool:
        if any(w not in self.postings for w in span) or not any(map(self._specific, span)):
            return False
        if len(span) == 1:
            return span[0] in self.heads and span[0].isalpha() and len(span[0]) >= _MIN_CHARS
        if " ".join(span) in self.heads:
            return True
        if span[0] in _CONNECTORS or span[-1] in _CONNECTORS:
            return False
        rarest = min(span, key=lambda w: len(self.postings[w]))
        needle = f" {' '.join(span)} "
        return any(
            self.phrases[i].startswith(needle) or self.phrases[i].endswith(needle)
            for i in self.postings[rarest]
        )

    def find(self, text: str) -> list[str]:
        """The condition names in ``text``, in order, the longest one at each position."""
        words = _words(text)
        found: list[str] = []
        i = 0
        while i < len(words):
            longest = min(_MAX_WORDS, len(words) - i)
            size = next((n for n in range(longest, 0, -1) if self._is_name(words[i : i + n])), 0)
            if size:
                found.append(" ".join(words[i : i + size]))
            i += size or 1
        return list(dict.fromkeys(found))


@functools.cache
def condition_names() -> ConditionNames:
    """The process-wide condition names, read on first use (about 0.1 s; two threads racing
    at start-up may both read them, harmlessly)."""
    names = ConditionNames.load()
    log.info("condition names loaded: %d phrases", len(names.phrases))
    return names

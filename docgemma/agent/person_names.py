"""Is a patient-name argument a person's name the clinician typed?

A small model fills a name search with whatever the message holds: a whole sentence
("On call tonight, several charts to get through"), or the words of a follow-up
("her labs as well"). A name here is a short run of the clinician's words, each of which can
be part of a name — not a pronoun, not a record word, not a drug, not a word of condition
names ("syndrome", "fever") — typed as a name is (capitalised), or right after the words
that introduce one ("find", "patient", "Mrs"), or in a message typed all in lower case.
Pure code, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgemma.agent.conditions import condition_names
from docgemma.agent.entities import drug_dictionary
from docgemma.topic_words import FILLER_WORDS, STOP_WORDS

MAX_NAME_WORDS = 4
_NAME_WORD = re.compile(r"[^\W\d_][^\W\d_'’.\-]*(?:['’.\-][^\W\d_]+)*\.?")
TITLE_WORDS = ("patient", "pt", "mr", "mrs", "ms", "miss", "mx", "dr")
"""Words written before a name that are not part of it."""
_TITLE = re.compile(rf"^(?:(?:{'|'.join(TITLE_WORDS)})\.?\s+)+", re.IGNORECASE)
_POSSESSIVE = re.compile(r"['’]s?$")
_NOT_NAME_WORDS_TEXT = (
    "chart charts record records file files note notes lab labs result results med meds "
    "medication medications allergy allergies history summary list review reviews vitals "
    "too also again now today tonight yesterday tomorrow here there system ehr emr "
    "database please pls plz thanks thank thx yes no ok okay few several many other another next "
    "same one ones each every both shift night day morning clinic ward rounds bed room "
    "doctor nurse everyone anyone we i you me us it its"
)
NOT_NAME_WORDS = frozenset(_NOT_NAME_WORDS_TEXT.split())
"""Words that are never a name, besides pronouns and the like (``FILLER_WORDS``) and words
that name no topic (``STOP_WORDS``): the record, time, place and quantity words of a
request about charts."""
_CUE = re.compile(
    r"\b(?:find|look\s+up|search(?:\s+for)?|locate|pull\s+up|open|patient|pt|named|called"
    r"|for|about|seeing|see|mr|mrs|ms|miss|mx|dr)\.?\s*$",
    re.IGNORECASE,
)
"""Words after which a lower-case run is still meant as a name ("find raj patel")."""


def without_title(value: str) -> str:
    """The name without a leading "patient" or title and a trailing possessive."""
    words = _TITLE.sub("", " ".join(value.split())).split()
    if words:
        words[-1] = _POSSESSIVE.sub("", words[-1])
    return " ".join(w for w in words if w)


def name_words_ok(value: str) -> bool:
    """One to four words, each of which can be part of a person's name."""
    words = value.split()
    if not 1 <= len(words) <= MAX_NAME_WORDS or not all(map(_name_word, words)):
        return False
    return not drug_dictionary().find(value)


def _name_word(word: str) -> bool:
    """One word that can be part of a person's name."""
    lower = word.lower().strip(".")
    return bool(_NAME_WORD.fullmatch(word)) and not (
        lower in NOT_NAME_WORDS
        or lower in FILLER_WORDS
        or lower in STOP_WORDS
        or condition_names().clinical_word(_POSSESSIVE.sub("", lower))
    )


def typed_as_name(value: str, messages: Sequence[str]) -> bool:
    """The clinician typed ``value`` as one run of words, written as a name is written."""
    words = value.split()
    pattern = re.compile(
        r"(?<![\w'’-])" + r"[\s,]+".join(re.escape(w) for w in words) + r"(?![\w-])",
        re.IGNORECASE,
    )
    for message in messages:
        for hit in pattern.finditer(message):
            typed = hit.group(0).replace(",", " ").split()
            if all(w[0].isupper() for w in typed):
                return True
            if _CUE.search(message[: hit.start()]) or not any(c.isupper() for c in message):
                return True
    return False


def is_person_name(value: str, messages: Sequence[str]) -> bool:
    """A person's name the clinician typed (``messages``: theirs, this turn's first)."""
    return name_words_ok(value) and typed_as_name(value, messages)


_WORD = re.compile(r"[^\s,;:!?()]+")


def introduced_names(message: str) -> list[str]:
    """The names the message introduces: the run of name words right after the words that
    introduce one ("find", "patient", "Mrs"), titles left out, in the order typed.

    Read by code when the model's name is not one the clinician typed: a message that
    introduces exactly one name says whom to search for.
    """
    matches = list(_WORD.finditer(message))
    words = [m.group(0) for m in matches]
    found: list[str] = []
    taken = 0  # words before this belong to a name already read
    for i, match in enumerate(matches):
        if i < taken or not _CUE.search(message[: match.start()]):
            continue
        run: list[str] = []
        for j in range(i, len(words)):
            text = words[j]
            if not run and text.lower().strip(".") in TITLE_WORDS:
                continue
            if len(run) == MAX_NAME_WORDS or not _name_word(text):
                break
            run.append(_POSSESSIVE.sub("", text))
            taken = j + 1
        name = " ".join(w for w in run if w)
        if name and name_words_ok(name) and name not in found:
            found.append(name)
    return found

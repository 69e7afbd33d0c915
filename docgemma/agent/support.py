"""Does each sentence of a sourced answer rest on what the model was given?

A small model writes from its sources and then goes on from memory. Given a condition page
that names metformin as first-line, a small model may add that metformin comes as "injections,
and patches"; given the pneumonia page, it may call the symptoms "similar to those of other
respiratory infections, such as bronchitis, sepsis, asthma, COVID-19, and pneumonia". Both
answers cite the page, and would be shown at high confidence.

Code cannot tell whether a sentence is true, but it can tell whether the clinical things it
names are in the prompt the model answered from (the question, the sources, the record):
drugs (as generics, so a brand matches its generic), conditions (ICD-10-CM names, compared
by how their words begin, so "infections" matches "infection"), dose forms and routes
("injection" is supported by "intravenous"), and numbers. A sentence naming one that is not
there is left out of the answer, or only its last clause when the rest stands without it (a
model often appends a list from memory: "…, such as nausea, vomiting and dizziness"); what
is left out is listed so the clinician can see it. Sentences that name nothing clinical, or
say that something is unavailable, stand. Accents are folded and a word is matched by a
given word that begins like it, so an English answer is supported by the French interaction
thesaurus's cognates ("hyperkaliémie", "insuffisance rénale"); but two different English
condition words never match ("hypertension" does not support "hyperkalemia").

A drug name that no dictionary knows is an invention wherever it appears, so an answer from
the model's memory, which has no sources to be held to, still loses the sentence naming it.
"""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from docgemma.agent.answer_check import LIST_ITEM_RE, NOT_RETRIEVED
from docgemma.agent.citations import CITATION_MARKER
from docgemma.agent.conditions import condition_names
from docgemma.agent.entities import drug_dictionary

_STEM_CHARS = 5
"""A given word can support a word only if both begin with the same five letters."""
_GENERIC_TEXT = (
    "symptom symptoms sign signs other such as and or of with in major minor mild moderate "
    "severe acute chronic active stage level high low risk years old both group type patient "
    "patients condition conditions disease diseases disorder disorders illness injury blood "
    "absent excessive mental nerve sinus thoracic endocrine sedative worries organ organs "
    "system systems"
)
GENERIC_CONDITION_WORDS = frozenset(_GENERIC_TEXT.split())
"""Words of condition names that name nothing by themselves ("years old", "high risk",
"signs and symptoms" are ICD-10-CM phrases too). Read off the condition names found in the
363 distinct answers of the committed evaluation runs."""
DOSE_FORMS: dict[str, tuple[str, ...]] = {
    "oral": ("oral", "orally", "tablet", "tablets", "capsule", "capsules", "pill", "pills"),
    "injected": (
        "injection",
        "injections",
        "injectable",
        "injected",
        "intravenous",
        "intravenously",
        "intramuscular",
        "intramuscularly",
        "subcutaneous",
        "subcutaneously",
        "infusion",
        "infusions",
    ),
    "transdermal": ("patch", "patches", "transdermal"),
    "inhaled": ("inhaler", "inhalers", "inhaled", "inhalation", "nebulized", "nebulised"),
    "topical": ("cream", "creams", "ointment", "ointments", "gel", "topical", "topically"),
    "rectal": ("suppository", "suppositories", "rectal", "rectally"),
    "sublingual": ("sublingual", "sublingually"),
}
"""Dose forms and routes, grouped so that any word of a group supports the others."""
EVERYDAY_WORDS: dict[str, tuple[str, ...]] = {
    "fever": ("temperature", "feverish"),
    "pyrexia": ("temperature", "fever"),
    "dyspnea": ("breath", "breathless", "breathing"),
    "shortness": ("breath", "breathless", "breathing"),
    "fatigue": ("tired", "tiredness", "exhausted"),
    "nausea": ("sick", "queasy"),
    "vomiting": ("sick", "vomit"),
    "emesis": ("sick", "vomit", "vomiting"),
    "tachycardia": ("fast", "racing"),
    "pruritus": ("itch", "itchy", "itching"),
}
"""Clinical words and how the condition pages, written in everyday words, say them: a
"fever" is supported by "a high temperature", "shortness of breath" by "difficulty
breathing"."""
THESAURUS_WORDS: dict[str, tuple[str, ...]] = {
    "bleeding": ("saignement", "saignements", "hemorragique", "hemorragiques", "hemorragie"),
    "hemorrhage": ("hemorragique", "hemorragiques", "hemorragie", "hemorragies"),
    "hemorrhagic": ("hemorragique", "hemorragiques"),
    "thrombocytopenia": ("thrombopenie", "thrombopenies"),
    "leukopenia": ("leucopenie",),
}
"""Clinical words and the French interaction thesaurus's words for them, accents folded,
where the two share too little of their beginnings to match ("hémorragique" is written
without the "h" of "hemorrhage"; "hémorragique" alone occurs 1,864 times in its data files)."""
_OTHER_WORDS = {
    w: EVERYDAY_WORDS.get(w, ()) + THESAURUS_WORDS.get(w, ())
    for w in EVERYDAY_WORDS.keys() | THESAURUS_WORDS.keys()
}
_MAX_ENDING_CHARS = 2
"""Two English condition words are one term when they differ only after the first five
letters and within the last two of the shorter: "ischemic" and "ischemia", "infarct" and
"infarction"; not "pneumonia" and "pneumothorax" nor "dysphagia" and "dysphasia"."""
_FORM_OF = {word: form for form, group in DOSE_FORMS.items() for word in group}
_FORM_PHRASES = {"by mouth": "oral", "under the tongue": "sublingual"}
_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"(?<![a-z]-)(?<![\w.])(\d+(?:\.\d+)?)", re.IGNORECASE)
"""A number standing alone or before its unit ("500mg"), not the end of a name ("COVID-19")."""
_ANY_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_NOT_A_QUANTITY = re.compile(
    r"\[\d{1,2}\]|\b\d{4}-\d{2}-\d{2}(?:t[\d:.]+z?)?|\b[a-z]+(?:-[a-z0-9]+)*-\d+\b"
)
"""Numbers of the prompt that support no dose or value: citation markers ("[2]"), dates
("2025-05-01") and ids ("abc-123")."""
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_TEXT = (
    "january february march april may june july august september october november december"
)
_MONTH_OF = {name: n for n, name in enumerate(_MONTH_TEXT.split(), 1)}
_MONTH_OF |= {name[:3]: n for name, n in _MONTH_OF.items()} | {"sept": 9}
_MONTH = "(" + "|".join(_MONTH_OF) + r")\.?"
_WRITTEN_DATE = re.compile(
    rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?(?:,? (\d{{4}}))?\b"
    rf"|\b(\d{{1,2}})(?:st|nd|rd|th)? {_MONTH}(?:,? (\d{{4}}))?\b"
)
"""A date as an answer writes it out: "March 8, 1961", "8 Mar 1961", "May 29"."""
Date = tuple[int, int, int | None]
"""Month, day and year, when written."""


def _dates_in(text: str) -> tuple[str, list[tuple[Date, str]]]:
    """``text`` without its dates, and each date with how it was written."""
    found: list[tuple[Date, str]] = []

    def iso(m: re.Match[str]) -> str:
        found.append(((int(m.group(2)), int(m.group(3)), int(m.group(1))), m.group(0)))
        return " "

    def written(m: re.Match[str]) -> str:
        month, day, year = m.group(1, 2, 3) if m.group(1) else m.group(5, 4, 6)
        found.append(((_MONTH_OF[month], int(day), int(year) if year else None), m.group(0)))
        return " "

    return _WRITTEN_DATE.sub(written, _ISO_DATE.sub(iso, text)), found


_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9*\"“(])")
_LAST_CLAUSE = re.compile(
    r",?\s+(?:which|such as|including|especially|particularly|like|e\.g\.,?)\s", re.IGNORECASE
)
_MIN_HEAD_WORDS = 4


_BRITISH = re.compile(r"(?<=[a-z])[ao]e(?=[a-z])|(?<=\b)[ao]e(?=[a-z])")


def _fold(text: str) -> str:
    """Lower case without accents or British digraphs: "rénale" reads as "renale",
    "haemorrhage" as "hemorrhage", "oedema" as "edema"."""
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _BRITISH.sub("e", text.lower())


def _number(text: str) -> str:
    return f"{float(text):g}"


@dataclass(frozen=True)
class Given:
    """What the model was given, in the forms the sentences are compared with."""

    by_stem: dict[str, frozenset[str]]
    """The words given, by their first ``_STEM_CHARS`` letters."""
    words: frozenset[str]
    forms: frozenset[str]
    numbers: frozenset[str]
    dates: frozenset[tuple[int, int, int]]
    """The dates given, as (month, day, year): an answer may restate them in words."""
    drugs: frozenset[str]

    @classmethod
    def of(cls, context: str) -> Given:
        lower = _THOUSANDS.sub("", _fold(context))
        words = frozenset(_WORD.findall(lower))
        by_stem: dict[str, set[str]] = {}
        for w in words:
            by_stem.setdefault(w[:_STEM_CHARS], set()).add(w)
        return cls(
            by_stem={stem: frozenset(ws) for stem, ws in by_stem.items()},
            words=words,
            forms=frozenset(
                {_FORM_OF[w] for w in words if w in _FORM_OF}
                | {form for phrase, form in _FORM_PHRASES.items() if phrase in lower}
            ),
            numbers=frozenset(
                _number(n) for n in _ANY_NUMBER.findall(_NOT_A_QUANTITY.sub(" ", lower))
            ),
            dates=frozenset((int(m), int(d), int(y)) for y, m, d in _ISO_DATE.findall(lower)),
            drugs=frozenset(d.lower() for d in drug_dictionary().find(lower)),
        )


def _conditions(text: str) -> list[str]:
    """Condition names that name something: several words, or a one-word diagnosis."""
    names = condition_names()
    found = []
    for name in names.find(text):
        words = name.split()
        if len(words) > 1 or words[0] in names.diagnoses:
            found.append(name)
    return found


def _same_term(word: str, other: str) -> bool:
    """Whether ``other``, sharing ``word``'s first five letters, says it. Two English
    condition words (both in the ICD-10-CM vocabulary) must differ only in their endings
    (``_MAX_ENDING_CHARS``); any other word, a French cognate say, must share more than
    half of the longer word from the start: "hyperkaliémie" says "hyperkalemia" (8 of 13
    letters), "hypertension" does not (5 of 12)."""
    shared = len(os.path.commonprefix((word, other)))
    if shared < _STEM_CHARS:
        return False
    vocabulary = condition_names().postings
    if word in vocabulary and other in vocabulary:
        return min(len(word), len(other)) - shared <= _MAX_ENDING_CHARS
    return 2 * shared > max(len(word), len(other))


def _forms(word: str) -> set[str]:
    """``word``, its plural or singular, and for a state the word it is made from: the
    stroke page says an arm "may go weak", which says "weakness"; "dizzy" says "dizziness"."""
    forms = {word, f"{word}s", f"{word}es"}
    forms |= {word[: -len(end)] for end in ("s", "es") if word.endswith(end)}
    if word.endswith("ness") and len(word) >= _STEM_CHARS + 3:
        base = word.removesuffix("ness")
        forms |= {base, base[:-1] + "y" if base.endswith("i") else base}
    return forms


def _said(word: str, given: Given) -> bool:
    """``word``, another of its ``_forms``, or a word ``_same_term`` accepts is given."""
    if not given.words.isdisjoint(_forms(word)):
        return True
    return any(_same_term(word, w) for w in given.by_stem.get(word[:_STEM_CHARS], ()))


def _named(condition: str, given: Given) -> bool:
    """Every specific word of ``condition`` is said by a word given ("infections" is named
    by "infection"), in everyday words ("fever" by "temperature") or in the thesaurus's
    French ("hemorrhage" by "hémorragique")."""
    specific = [
        w for w in condition.split() if w not in GENERIC_CONDITION_WORDS and not w.isdigit()
    ]
    return all(
        _said(w, given) or not given.words.isdisjoint(_OTHER_WORDS.get(w, ())) for w in specific
    )


def _drug_named(generic: str, given: Given) -> bool:
    """The generic, or each of its words starting a word given: "serotonin" is named by the
    thesaurus's "sérotoninergique"; "prednisone" is not named by "prednisolone"."""
    if generic in given.drugs:
        return True
    return all(any(w.startswith(part) for w in given.words) for part in _WORD.findall(generic))


_MISSING_INFORMATION = re.compile(
    rf"\b(?:{NOT_RETRIEVED}|not (?:be |been )?found"
    r"|(?:could not|couldn't|cannot|can't|unable to)(?: be)? "
    r"(?:retriev|check|consult|find|found|access|verif|confirm|look)\w*)\b",
    re.IGNORECASE,
)
"""A sentence saying what could not be looked up: it may name the drug or condition it is
about ("Lisinopril could not be checked"), but its numbers and dose forms are still held to
the sources. "If the patient cannot swallow, give 10 mg intravenously" is no such sentence."""


def unsupported_terms(sentence: str, given: Given) -> list[str]:
    """The drugs, conditions, dose forms and numbers ``sentence`` names that ``given`` lacks."""
    text = _fold(_THOUSANDS.sub("", CITATION_MARKER.sub(" ", LIST_ITEM_RE.sub("", sentence))))
    terms: list[str] = []
    if not _MISSING_INFORMATION.search(text):
        terms += [d for d in drug_dictionary().find(text) if not _drug_named(d.lower(), given)]
        terms += [c for c in _conditions(text) if not _named(c, given)]
    words = _WORD.findall(text)
    terms += [w for w in words if w in _FORM_OF and _FORM_OF[w] not in given.forms]
    undated, dates = _dates_in(text)
    terms += [
        written
        for date, written in dates
        if not any(date[:2] == g[:2] and date[2] in (None, g[2]) for g in given.dates)
    ]
    terms += [n for n in _NUMBER.findall(undated) if _number(n) not in given.numbers]
    return list(dict.fromkeys(terms))


def states_nothing(answer: str) -> bool:
    """Whether ``answer`` only greets or asks: every sentence ends in "!" or "?" and names no
    drug, condition, dose form or number ("Certainly! What's your clinical question?"). It
    states no knowledge, so it needs no label saying its knowledge is unverified."""
    nothing = Given.of("")
    sentences = [s.strip() for line in answer.splitlines() for s in _sentences(line)]
    return bool(sentences) and all(
        s.endswith(("!", "?")) and not unsupported_terms(s, nothing) for s in sentences
    )


_INN_TEXT = (
    "amide azepam azine azole cillin cycline dipine floxacin gliflozin gliptin glutide lukast "
    "mycin olol oxetine parin prazole pril profen sartan setron statin tidine triptan ximab "
    "zumab"
)
INN_ENDINGS = tuple(_INN_TEXT.split())
"""Word endings of international drug names (the WHO INN and USAN stems, "-olol",
"-sartan", …). Of the 598 distinct answers in the committed evaluation runs, only one has a
word with one of them that is missing from the drug dictionary and the ICD-10-CM
vocabulary: "N-acetyphenazine", an invented antidote for acetaminophen poisoning."""
_MIN_INN_CHARS = 7
"""Shorter words with these endings are everyday words or the stems themselves ("statin")."""
_UNLISTED_TEXT = (
    "sulfonamide sulphonamide carboxamide triazole imidazole nitroimidazole benzimidazole "
    "aminopenicillin ureidopenicillin glycylcycline cotrimoxazole magazine"
)
UNLISTED_DRUG_WORDS = frozenset(_UNLISTED_TEXT.split())
"""Real words with those endings that the drug dictionary lacks: drug classes, chemical
groups, a common spelling it has only hyphenated ("co-trimoxazole"), an English word."""


@functools.cache
def drug_name_words() -> frozenset[str]:
    """Every word of every name in the drug dictionary, folded like the answers: the second
    word of "tenofovir alafenamide", the halves of "co-trimoxazole"."""
    names = drug_dictionary().index.values()
    return frozenset(
        w for by_words in names for name in by_words for w in _WORD.findall(_fold(" ".join(name)))
    )


def invented_substances(sentence: str, given: Given) -> list[str]:
    """Words shaped like a drug name that neither the drug dictionary, the ICD-10-CM
    vocabulary nor ``given`` knows, such as "N-acetyphenamide" named as the antidote for
    acetaminophen overdose: a model's invention."""
    known = drug_name_words()
    vocabulary = condition_names().postings
    return [
        w
        for w in dict.fromkeys(_WORD.findall(_fold(sentence)))
        if len(w) >= _MIN_INN_CHARS
        and w.endswith(INN_ENDINGS)
        and w not in known
        and w not in UNLISTED_DRUG_WORDS
        and w not in vocabulary
        and w not in given.words
    ]


Checker = Callable[[str, Given], list[str]]
"""What a sentence names that ``Given`` does not account for."""


def unsupported_or_invented(sentence: str, given: Given) -> list[str]:
    """What a sourced answer's sentence is held to: its sources, and real drug names."""
    return [*unsupported_terms(sentence, given), *invented_substances(sentence, given)]


@dataclass(frozen=True)
class Support:
    text: str
    """The answer without what its sources do not support."""
    left_out: tuple[str, ...]
    """The sentences, or last clauses, left out, as written."""


def _sentences(line: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(line) if s.strip()]


def _supported_part(sentence: str, given: Given, check: Checker) -> tuple[str, str]:
    """What of ``sentence`` stands, and what is left out: all of it, its head without an
    unsupported last clause, or nothing."""
    if not check(sentence, given):
        return sentence, ""
    starts = [m.start() for m in _LAST_CLAUSE.finditer(sentence)]
    if starts:
        cut = starts.pop()
        while starts and "," not in sentence[starts[-1] + 1 : cut]:
            cut = starts.pop()  # "…, which can include symptoms such as …" goes from "which"
        head = sentence[:cut].rstrip(" ,;:")
        if len(head.split()) >= _MIN_HEAD_WORDS and not check(head, given):
            end = sentence.rstrip()[-1]
            return head + (end if end in ".!?" else ""), sentence[cut:].strip(" ,")
    return "", sentence.strip()


def _emptied_lists(lines: list[str], kept: list[str | None]) -> set[int]:
    """Lines that introduce a list ("It comes as:") whose every item was left out."""
    found = set()
    for i, line in enumerate(lines):
        if not line.rstrip().endswith(":"):
            continue
        items = []
        for j in range(i + 1, len(lines)):
            if lines[j].strip() and not LIST_ITEM_RE.match(lines[j]):
                break
            if lines[j].strip():
                items.append(kept[j])
        if items and all(item is None for item in items):
            found.add(i)
    return found


def keep_supported(answer: str, context: str, check: Checker = unsupported_or_invented) -> Support:
    """``answer`` without what names something ``context`` does not (``check``: what counts;
    an answer from memory is held only to ``invented_substances``)."""
    given = Given.of(context)
    lines = answer.splitlines()
    kept: list[str | None] = []
    left_out: list[str] = []
    for line in lines:
        marker = LIST_ITEM_RE.match(line)
        head = marker.group(0) if marker else ""
        sentences = []
        for sentence in _sentences(line[len(head) :]):
            stands, dropped = _supported_part(sentence, given, check)
            sentences += [stands] if stands else []
            left_out += [dropped] if dropped else []
        kept.append(head + " ".join(sentences) if sentences or not line.strip() else None)
    if not left_out:
        return Support(answer, ())
    emptied = _emptied_lists(lines, kept)
    shown = [k for i, k in enumerate(kept) if k is not None and i not in emptied]
    while shown and not shown[-1].strip():
        shown.pop()
    if shown and shown[-1].rstrip().endswith(":"):
        # a lead-in left at the end: what it introduced was left out
        rest = " ".join(_sentences(shown.pop())[:-1])
        shown += [rest] if rest else []
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(_renumbered(shown))).strip()
    return Support(text, tuple(left_out))


_NUMBERED = re.compile(r"^(\s*)\d+([.)]\s)")


def _renumbered(lines: list[str]) -> list[str]:
    """Numbered items counted again from 1 in each list, blank lines within it allowed: with
    its first item left out, a list on stroke's warning signs began at "2."."""
    out, n = [], 0
    for line in lines:
        item = _NUMBERED.match(line)
        if item:
            n += 1
            line = f"{item[1]}{n}{item[2]}{line[item.end() :]}"
        elif line.strip():
            n = 0
        out.append(line)
    return out

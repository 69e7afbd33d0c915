"""A deterministic check of a generated answer: is it junk a clinician must never see?

Small models fail in recognisable ways: they echo their instructions, loop on a line,
drift into another script ("bloodstream に通いroom"), emit code identifiers
("mendatang LoginPage"), stop mid-sentence, or repeat tool names and raw error text.
Each failure is a ``Defect``; ``check_answer`` returns the ones it finds. Pure
functions of text, so the experiments measure the degenerate-output rate with the
same code that guards the app.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from docgemma.agent.answer import SPECIAL_TOKEN_PATTERN
from docgemma.agent.citations import CITATION_MARKER
from docgemma.agent.entities import drug_dictionary
from docgemma.tools.text import names


class Defect(StrEnum):
    EMPTY = "empty"
    CUT_OFF = "cut off mid-sentence"
    PROMPT_ECHO = "repeats its instructions"
    REPETITION = "repeats itself"
    FOREIGN_SCRIPT = "text in an unexpected script"
    CODE_TOKEN = "code identifiers in prose"
    TOOL_NAME = "internal tool names"
    RAW_ERROR = "raw error text"
    ONLY_SOURCES = "only lists the sources"
    CLAIMS_MISSING_SOURCE = "presents findings of a source that was unavailable"
    CLAIMS_UNCHECKED = "states a finding about something the sources could not check"
    DENIES_FINDING = "denies what a source found"
    UNSUPPORTED = "names only what its sources do not"


@dataclass(frozen=True)
class AnswerCheck:
    defects: tuple[Defect, ...]

    @property
    def ok(self) -> bool:
        return not self.defects

    def reason(self) -> str:
        return "; ".join(self.defects) if self.defects else "passed"


ECHO_NGRAM = 7
"""Seven consecutive words shared with the instructions count as echo."""
_MIN_WORDS = 3
_CUT_MIN_WORDS = 40
"""Shorter answers did not run into the token limit (256 tokens is ~190 words)."""
_REPEATED_NGRAM, _REPEATS = 6, 3
_FOREIGN_SCRIPTS = frozenset(
    [
        "CJK",
        "HIRAGANA",
        "KATAKANA",
        "HANGUL",
        "BOPOMOFO",
        "FULLWIDTH",
        "HALFWIDTH",
        "CYRILLIC",
        "THAI",
        "LAO",
        "KHMER",
        "MYANMAR",
        "TIBETAN",
        "MONGOLIAN",
        "ARABIC",
        "HEBREW",
        "SYRIAC",
        "DEVANAGARI",
        "BENGALI",
        "GURMUKHI",
        "GUJARATI",
        "TAMIL",
        "TELUGU",
        "KANNADA",
        "MALAYALAM",
        "SINHALA",
        "ARMENIAN",
        "GEORGIAN",
        "ETHIOPIC",
        "YI",
    ]
)
"""Writing systems a drifting model slips into. Latin, Greek (α-blocker, β-lactam) and
letter-like signs (µ, ℓ, º) are ordinary in clinical prose and never count."""
_CAMEL_RE = re.compile(r"\b[a-z]*[A-Z][a-z]{2,}[A-Z][a-z]{2,}\w*\b(?!\.[a-z])")  # not a domain
PROPER_NAMES = frozenset(
    {
        "docgemma", "medgemma", "pubmed", "pubmedqa", "medqa", "dailymed", "medline",
        "clinicaltrials", "clinicaltrial",
    }
)  # fmt: skip
"""Names written in CamelCase that an answer may rightly mention (this app's own among them:
its knowledge base cites "DocGemma demonstration page"; the trial registry is
ClinicalTrials.gov, which a model may write as "ClinicalTrial Search")."""
_SNAKE_RE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+){1,}\b")
_ERROR_RE = re.compile(
    r"Traceback \(most recent call last\)|\b\w*(?:Error|Exception):|\bHTTP \d{3}\b"
    rf"|status code \d{{3}}|\berrno\b|{SPECIAL_TOKEN_PATTERN}|\{{\s*\""
)
"""A stack trace, an exception name with its message, an HTTP status, a turn token, JSON."""
_WORD_RE = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_CLOSED = r"[.!?…)\]\"'”’*:]\s*$"
_LIST_ITEM = r"^\s*(?:[-*•]|\d+[.)])\s"
_CLOSED_RE = re.compile(_CLOSED)
LIST_ITEM_RE = re.compile(_LIST_ITEM)
_END_RE = re.compile(f"{_CLOSED}|{_LIST_ITEM}", re.MULTILINE)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD_RE.findall(text)]


def _ngrams(tokens: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def scripts(text: str) -> set[str]:
    """The Unicode scripts of the letters in ``text`` (first word of each letter's name)."""
    found = set()
    for ch in set(text):  # each distinct letter once: answers are long, alphabets small
        if ch.isalpha():
            name = unicodedata.name(ch, "")
            found.add(name.split(" ")[0] if name else "UNKNOWN")
    return found


def echoes(answer: str, instructions: str, markers: Iterable[str] = ()) -> bool:
    """The answer repeats a run of the instructions or one of the prompt's section labels."""
    if any(m.lower() in answer.lower() for m in markers):
        return True
    told = set(_ngrams(words(instructions), ECHO_NGRAM))
    return bool(told) and any(g in told for g in _ngrams(words(answer), ECHO_NGRAM))


def repeats(answer: str) -> bool:
    """A line said twice (list numbers aside: a looping model numbers each copy anew), or a
    run of words said three times."""
    items = (words(LIST_ITEM_RE.sub("", line)) for line in answer.splitlines())
    lines = [" ".join(item) for item in items if len(item) >= _MIN_WORDS]
    if any(count > 1 for count in Counter(lines).values()):
        return True
    grams = Counter(_ngrams(words(answer), _REPEATED_NGRAM))
    return any(count >= _REPEATS for count in grams.values())


def foreign_script(answer: str, question: str) -> bool:
    """Letters of a script that neither English prose nor the question uses."""
    return bool((scripts(answer) & _FOREIGN_SCRIPTS) - scripts(question))


def code_tokens(answer: str, context: str) -> list[str]:
    """CamelCase or snake_case identifiers that the question and sources do not contain.
    Brand names written in CamelCase ("EpiPen", "NovoLog") are drugs, not code: an answer on
    anaphylaxis that says "epinephrine (e.g., EpiPen)" is not junk."""
    found = _CAMEL_RE.findall(answer) + _SNAKE_RE.findall(answer)
    return [
        t
        for t in found
        if t.lower() not in context.lower()
        and t.lower() not in PROPER_NAMES
        and not drug_dictionary().find(t)
    ]


def only_sources(answer: str, context: str) -> bool:
    """Every line is a numbered source copied from the prompt ("[1] EHR chart of …"): the
    model listed where the facts are instead of stating them."""
    lines = [line.strip() for line in answer.splitlines() if line.strip()]
    return bool(lines) and all(
        CITATION_MARKER.match(line) and line.rstrip(".") in context for line in lines
    )


_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|\n+")
NOT_RETRIEVED = (
    r"unavailable|not available|not (?:be |been )?(?:retrieved|consulted|checked|listed|covered)"
    r"|not in the|no information|not accessible"
)
"""Phrases that say information was not there; ``support`` builds on them too."""
UNAVAILABLE_RE = re.compile(
    rf"\b(?:{NOT_RETRIEVED}|could not|couldn't|cannot|can't|unable)\b", re.IGNORECASE
)


def _claims(answer: str, *words: Iterable[str]) -> bool:
    """A sentence has one word (or word start) of each group and does not say the
    information is unavailable."""
    groups = [[re.compile(rf"\b{re.escape(w)}", re.IGNORECASE) for w in g] for g in words]
    return any(
        all(any(p.search(sentence) for p in group) for group in groups)
        and not UNAVAILABLE_RE.search(sentence)
        for sentence in _SENTENCE_RE.split(answer)
    )


def claims_missing_source(answer: str, claims: Iterable[str]) -> bool:
    """A sentence presents findings in the words of a source that failed ("The FDA boxed
    warnings for warfarin include: …" with no label retrieved) without saying they are
    unavailable: a small model fills the gap with another source's text or its memory."""
    return _claims(answer, claims)


def claims_unchecked(answer: str, unchecked: Iterable[tuple[str, tuple[str, ...]]]) -> bool:
    """A sentence states a finding about something a source could not check ("a graded
    interaction between dofetilide and azithromycin" when no reference lists dofetilide)
    without saying it was not checked; ``unchecked`` pairs the thing with the source's
    words (``ToolSpec.claimed_by``)."""
    return any(_claims(answer, (subject,), claims) for subject, claims in unchecked)


@dataclass(frozen=True)
class Findings:
    """What one source found, each finding as the things it joins (a graded interaction's
    two drugs), and the patterns of the sentences that deny it (``ToolSpec.denied_by``)."""

    joined: tuple[tuple[str, ...], ...]
    denials: tuple[str, ...]
    others: tuple[str, ...] = ()
    """What else the source was asked about and could not check: a denial naming only these
    is about them ("dofetilide was not checked")."""


def denies_finding(answer: str, findings: Iterable[Findings]) -> bool:
    """A sentence denies what a source found ("Sertraline and sumatriptan do not interact"
    when the thesaurus grades the pair): a denial that names all a finding joins, or nothing
    the source was asked about ("there is no interaction"). One naming another pair stands."""
    sentences = _SENTENCE_RE.split(answer)
    for found in findings:
        denials = [re.compile(d, re.IGNORECASE) for d in found.denials]
        for sentence in (s for s in sentences if any(d.search(s) for d in denials)):
            named = [[names(sentence, thing) for thing in group] for group in found.joined]
            other = any(names(sentence, thing) for thing in found.others)
            if any(all(group) for group in named) or not (any(map(any, named)) or other):
                return True
    return False


def cut_off(answer: str) -> bool:
    """A long answer whose last line stops without closing punctuation (the token limit hit
    it mid-sentence); a list item or heading may end bare, and short replies are not cut."""
    if len(words(answer)) < _CUT_MIN_WORDS:
        return False
    last = answer.rstrip().splitlines()[-1]
    return not _END_RE.search(last) and not last.lstrip().startswith("#")


def check_answer(
    answer: str,
    *,
    question: str,
    instructions: str = "",
    markers: Iterable[str] = (),
    tool_names: Iterable[str] = (),
    context: str = "",
    missing_claims: Iterable[str] = (),
    unchecked: Iterable[tuple[str, tuple[str, ...]]] = (),
    findings: Iterable[Findings] = (),
) -> AnswerCheck:
    """Every defect of ``answer``; ``context`` is the text it may legitimately quote
    (the question and the tool results), ``markers`` the prompt's section labels,
    ``missing_claims`` the words of sources that failed (``ToolSpec.claimed_by``),
    ``unchecked`` what a source could not check with its words (``claims_unchecked``),
    ``findings`` what the sources found, which the answer must not deny."""
    if not words(answer):
        return AnswerCheck((Defect.EMPTY,))
    found: list[Defect] = []
    if echoes(answer, instructions, markers):
        found.append(Defect.PROMPT_ECHO)
    if repeats(answer):
        found.append(Defect.REPETITION)
    if foreign_script(answer, question):
        found.append(Defect.FOREIGN_SCRIPT)
    names = {n.lower() for n in tool_names}
    tokens = code_tokens(answer, f"{question}\n{context}")
    if any(t.lower() in names for t in tokens) or any(n in answer.lower() for n in names):
        found.append(Defect.TOOL_NAME)
    if any(t.lower() not in names for t in tokens):
        found.append(Defect.CODE_TOKEN)
    if _ERROR_RE.search(answer):
        found.append(Defect.RAW_ERROR)
    if cut_off(answer):
        found.append(Defect.CUT_OFF)
    if only_sources(answer, context):
        found.append(Defect.ONLY_SOURCES)
    if claims_missing_source(answer, missing_claims):
        found.append(Defect.CLAIMS_MISSING_SOURCE)
    if claims_unchecked(answer, unchecked):
        found.append(Defect.CLAIMS_UNCHECKED)
    if denies_finding(answer, findings):
        found.append(Defect.DENIES_FINDING)
    return AnswerCheck(tuple(found))


def is_degenerate(answer: str, **kwargs: object) -> bool:
    """For the experiments' degenerate-output rate: any defect at all."""
    return not check_answer(answer, **kwargs).ok  # type: ignore[arg-type]


def drop_unfinished_end(answer: str) -> str:
    """An answer the token limit stopped, without its unfinished last sentence or list item.

    The limit can fall inside a list item ("11. Administering intr"), which the text alone
    cannot tell from an item that ends bare, so the caller says the limit was hit.
    """
    lines = answer.rstrip().splitlines()
    if not lines or _CLOSED_RE.search(lines[-1]):
        return answer.rstrip()
    marker = LIST_ITEM_RE.match(lines[-1])
    head = marker.group(0) if marker else ""
    sentences = re.split(r"(?<=[.!?])\s+", lines[-1][len(head) :])
    if len(sentences) > 1:
        lines[-1] = head + " ".join(sentences[:-1])
    else:
        lines.pop()
    return "\n".join(lines).rstrip()


def trim_to_last_sentence(answer: str) -> str:
    """An answer cut by the token limit, ended at its last complete sentence or list item."""
    lines = answer.rstrip().splitlines()
    while lines and not _END_RE.search(lines[-1]):
        last = lines.pop()
        sentences = re.split(r"(?<=[.!?])\s+", last)
        if len(sentences) > 1:
            lines.append(" ".join(sentences[:-1]))
            break
    return "\n".join(lines).rstrip()

"""The answer as statements, each with its sources and a verbatim quote, checked by code.

The model writes each statement after choosing its quote among the sources' own
sentences (``quotes``); the sources a statement rests on are those that hold its quote.
Code then holds each statement to the rules a reviewer would apply to any cited text:

- the quote is in a source the statement cites (compared after folding case, accents,
  Unicode forms, punctuation and spacing; an ellipsis may join pieces of one passage);
- every number in the statement is in its quote or the question, so a dose or a value
  cannot change between the source and the answer;
- it says something the question does not (a word or a number);
- when its quote is a label and what it holds ("Allergies: penicillin"), it says some of
  what it holds, not only the label;
- a capitalised name it uses mid-sentence (an eponym, a brand, a place) is in its quote,
  the question or its source's title;
- it says "not", "no", "never" or the like only when its quote does, and what it denies
  is in its quote, so a statement cannot turn what its source affirms ("combination not
  recommended", "increases the risk") into a denial ("they do not interact"), nor borrow
  a quote's "no" to deny something else ("no antidote" from "no interaction is listed");
  a quote denying only a record ("no interaction is listed") supports only a statement
  that keeps the record's word ("listed", "graded", "reported");
- a verdict it gives ("safe", "recommended", "avoid", "contraindicated") is its quote's;
- most of the statement's content words are in the sources it cites or the question
  (``MIN_WORD_SHARE``), and half of them are in its quote or the question
  (``MIN_QUOTE_SHARE``), so the statement is made of what its sources say and the quote
  is the sentence that says it. A source's title and label count as its words, so a
  statement may say where its fact comes from.

A statement that breaks one is dropped with the reason, which the retry tells the model.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from docgemma.agent.answer.sources import CITATION, Passage
from docgemma.topic_words import FILLER_WORDS, STEM_CHARS, STOP_WORDS

MAX_STATEMENTS = 5
MAX_SOURCES = 3
QUOTE_CHARS = 200
"""The longest quote: a sentence of a source, or a clause of a longer one."""
STATEMENT_CHARS = 240
MIN_QUOTE_WORDS = 2
"""One word proves nothing: it is in the source whatever the statement says."""
MIN_WORD_SHARE = 0.6
"""Share of a statement's content words that its cited sources or the question must hold."""
MIN_QUOTE_SHARE = 0.5
"""Share of a statement's content words that its quote or the question must hold."""


class Statement(BaseModel):
    """One fact for the clinician, with where it comes from."""

    sources: list[int] = Field(min_length=1, max_length=MAX_SOURCES)
    quote: str = Field(max_length=QUOTE_CHARS)
    text: str = Field(max_length=STATEMENT_CHARS)


class CitedAnswer(BaseModel):
    """The answer as sourced statements; none when the sources do not answer the question."""

    statements: list[Statement] = Field(max_length=MAX_STATEMENTS)


_DASHES = str.maketrans({c: "-" for c in "‐‑‒–—―−"})
_NON_WORD = re.compile(r"[\W_]+")
_ELLIPSIS = re.compile(r"\.{3,}|…")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_WORD = re.compile(r"[a-z]+")
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|neither|nor|without|cannot|absent)\b|n['’]t\b", re.I
)


def normalise(text: str) -> str:
    """Lower case, accents folded, Unicode compatibility forms resolved, punctuation and
    spacing reduced to single spaces."""
    text = unicodedata.normalize("NFKD", text.translate(_DASHES))
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return " ".join(_NON_WORD.sub(" ", text).split())


def quote_in(quote: str, source: str) -> bool:
    """``quote`` (each piece between ellipses) appears in ``source``, as whole words."""
    pieces = [normalise(p) for p in _ELLIPSIS.split(quote)]
    pieces = [p for p in pieces if p]
    if not pieces or sum(len(p.split()) for p in pieces) < MIN_QUOTE_WORDS:
        return False
    haystack = f" {normalise(CITATION.sub(' ', source))} "  # a tool's own [k] markers are no words
    return all(f" {p} " in haystack for p in pieces)


def numbers(text: str) -> set[str]:
    """The numbers in ``text``, compared by value; compatibility forms folded first, so
    "m²" and "m2" hold the same 2."""
    text = unicodedata.normalize("NFKC", CITATION.sub(" ", text))
    return {f"{float(n.replace(',', '.')):g}" for n in _NUMBER.findall(text)}


def content_stems(text: str) -> set[str]:
    words = _WORD.findall(normalise(text))
    return {
        w[:STEM_CHARS]
        for w in words
        if len(w) >= 4 and w not in STOP_WORDS and w not in FILLER_WORDS
    }


def word_share(statement: str, support: str) -> float:
    """Share of the statement's content words (by their first letters) found in ``support``."""
    said = content_stems(statement)
    return len(said & content_stems(support)) / len(said) if said else 1.0


@dataclass(frozen=True)
class Checked:
    statement: Statement
    cited: tuple[int, ...]
    """The numbers of real sources it cites, in order."""
    failure: str = ""
    """Why it was dropped; empty when it passed."""

    @property
    def ok(self) -> bool:
        return not self.failure


_LABELLED = re.compile(r"^([^:]{1,40}):\s+(\S.*)$", re.S)
"""A quote that is a label and what it holds ("Allergies: penicillin (rash)")."""


_DENIED_WORDS = 3
"""How far after "no"/"not" the word it denies is looked for ("no known antidote")."""


def _denied(text: str) -> set[str]:
    """The content words (by stem) a text denies: the first within a few words of each
    "no", "not", "never"."""
    words = normalise(text).split()
    denied: set[str] = set()
    for i, word in enumerate(words):
        if _NEGATION.fullmatch(word) or word.endswith("n't"):
            after = [content_stems(w) for w in words[i + 1 : i + 1 + _DENIED_WORDS]]
            denied |= next((s for s in after if s), set())
    return denied


def opposite(a: str, b: str) -> bool:
    """One statement denies what the other asserts: the same content words, with "no",
    "not" or "never" in one of them only ("X should not be taken with Y", "X should be
    taken with Y")."""
    negated = bool(_NEGATION.search(a)) != bool(_NEGATION.search(b))
    return negated and bool(content_stems(a)) and content_stems(a) == content_stems(b)


_RECORDED = re.compile(
    r"\b(?:list\w*|grade[sd]?|report\w*|record\w*|document\w*|known|found|describ\w*)\b"
)
"""Words that make a denial one of record: "no interaction is listed" says what a
reference holds, not that the drugs are safe together."""
_CLAUSE_END = re.compile(r"[.;:,]")


def _denials(text: str) -> list[str]:
    """The clauses of ``text`` that say "no", "not" or "never"."""
    return [clause for clause in _CLAUSE_END.split(text) if _NEGATION.search(clause)]


def _denies_a_record(quote: str) -> bool:
    """A clause of ``quote`` denies that something is listed, graded or reported."""
    return any(_RECORDED.search(clause) for clause in _denials(quote))


def _denies_as_quoted(text: str, quote: str) -> bool:
    """A statement says "no", "not" or "never" only when its quote does, and what it denies
    is in its quote: "no interaction" may rest on "No interaction … is listed", "no
    antidote" may not. A quote that denies only a record ("This reference grades no
    interaction …") supports a denial that says so too ("… is not listed in the
    reference"), never one of fact ("they do not interact"): a missing entry is not a
    missing effect."""
    if not _NEGATION.search(text):
        return True
    if not (_NEGATION.search(quote) and _denied(text) <= content_stems(quote)):
        return False
    return not _denies_a_record(quote) or all(_RECORDED.search(c) for c in _denials(text))


VERDICTS = (
    "safe", "unsafe", "harmless", "dangerous", "fine", "ok", "acceptable", "appropriate",
    "recommend", "contraindicat", "avoid", "allowed", "permitted",
)  # fmt: skip
"""The roots of words that judge whether something may be done."""
_VERDICT_NEGATION_WORDS = 3


def _verdicts(text: str) -> set[tuple[str, bool]]:
    """``(root, denied)`` for each verdict word of ``text``: "not recommended" is
    ``("recommend", True)``."""
    found = set()
    for clause in _CLAUSE_END.split(text.lower()):
        words = re.findall(r"[a-z]+(?:['’][a-z]+)?", clause)
        for i, word in enumerate(words):
            root = next((r for r in VERDICTS if word.startswith(r)), None)
            if root is not None:
                before = words[max(0, i - _VERDICT_NEGATION_WORDS) : i]
                found.add((root, any(_NEGATION.fullmatch(w) for w in before)))
    return found


def _judges_as_quoted(text: str, quote: str, names: Sequence[str]) -> bool:
    """A statement's verdict ("safe", "not recommended", "avoid") is its quote's, with its
    "not": a source that says "contraindicated" or "not recommended" cannot become "it is
    safe" or "it is recommended" by a word the writer added. ``names``: the cited sources'
    labels and titles, which are no verdict ("Drug Safety Report")."""
    for name in filter(None, names):
        text = re.sub(re.escape(name), " ", text, flags=re.I)
    return _verdicts(text) <= _verdicts(quote)


def _tells(text: str, quote: str) -> bool:
    """A statement quoting "Label: what it holds" says some of what it holds (a word or a
    number), not only the label ("The patient's active medications.")."""
    labelled = _LABELLED.match(quote.strip())
    if not labelled:
        return True
    held = labelled.group(2)
    return bool(content_stems(text) & content_stems(held) or numbers(text) & numbers(held))


_CAPITALISED = re.compile(r"\b[A-Z][a-z]{2,}(?:['’]s)?\b")
_SENTENCE_START = re.compile(r"(?:^\s*(?:[-*•]\s*)?|[.!?:;]\s+|\n\s*(?:[-*•]\s*)?|\(\s*)$")
_IN_TITLE = re.compile(r"\b[A-Z][\w'’]*\s+$")
_TITLE_GOES_ON = re.compile(r"\s+[A-Z]")
"""A capitalised word beside another is part of a title or a person's name ("Drug Safety
Report", "Maria Garcia"), which a source's heading or the record gives, not an eponym."""
_CALENDAR = frozenset(
    {
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    }
)


def _name_key(word: str) -> str:
    return normalise(re.sub(r"['’]s$", "", word))


def proper_names(text: str) -> set[str]:
    """The capitalised words of ``text`` that neither start a sentence nor stand beside
    another (an eponym, a brand, a place): a statement may take such a name only from its
    quote, the question or its source's title, since a condition named from elsewhere in a
    label ("monitor potassium in Addison's disease", from a label that lists Addison's
    disease as a contraindication) changes what the quote says. Months and weekdays are
    dates, not names."""
    found = {
        _name_key(m.group(0))
        for m in _CAPITALISED.finditer(text)
        if not _SENTENCE_START.search(text[: m.start()])
        and not _IN_TITLE.search(text[: m.start()])
        and not _TITLE_GOES_ON.match(text[m.end() :])
    }
    return found - _CALENDAR


def proper_names_in(text: str) -> set[str]:
    """Every word of ``text`` as ``proper_names`` keys it, wherever it stands."""
    return {_name_key(w) for w in re.findall(r"[^\W\d_]+(?:['’]s)?", text)}


def check(statement: Statement, passages: Sequence[Passage], question: str) -> Checked:
    """``statement`` held to its sources (see the module docstring)."""
    by_number = {p.n: p for p in passages}
    cited = tuple(dict.fromkeys(n for n in statement.sources if n in by_number))
    text = CITATION.sub("", statement.text).strip()
    statement = statement.model_copy(update={"text": text})
    if not cited:
        return Checked(statement, cited, "it cites no source that was given")
    if not text:
        return Checked(statement, cited, "it is empty")
    quoted = [n for n in cited if quote_in(statement.quote, by_number[n].text)]
    if not quoted:
        where = ", ".join(f"[{n}]" for n in cited)
        return Checked(statement, cited, f"its quote is not in source {where} word for word")
    extra = numbers(text) - numbers(statement.quote) - numbers(question)
    if extra:
        return Checked(
            statement, cited, f"its numbers {', '.join(sorted(extra))} are not in its quote"
        )
    if not content_stems(text) - content_stems(question) and not numbers(text) - numbers(question):
        return Checked(statement, cited, "it only restates the question")
    if not _tells(text, statement.quote):
        return Checked(statement, cited, "it names what its quote is about, not what it says")
    if not _denies_as_quoted(text, statement.quote):
        return Checked(statement, cited, "it denies what its quote does not")
    sources = [by_number[n] for n in cited]
    named = " ".join(f"{p.label} {p.title}" for p in sources)
    if not _judges_as_quoted(
        text, statement.quote, [n for p in sources for n in (p.label, p.title)]
    ):
        return Checked(statement, cited, "it judges what its quote does not")
    foreign = proper_names(text) - proper_names_in(f"{statement.quote} {question} {named}")
    if foreign:
        words = dict.fromkeys(w for w in _CAPITALISED.findall(text) if _name_key(w) in foreign)
        return Checked(statement, cited, f"it names {', '.join(words)}, which its quote does not")
    cited_text = " ".join(by_number[n].text for n in cited)
    if word_share(text, f"{named} {cited_text} {question}") < MIN_WORD_SHARE:
        return Checked(statement, cited, "it says things its sources do not")
    if word_share(text, f"{named} {statement.quote} {question}") < MIN_QUOTE_SHARE:
        return Checked(statement, cited, "its quote does not say it")
    return Checked(statement, cited)


def check_all(answer: CitedAnswer, passages: Sequence[Passage], question: str) -> list[Checked]:
    return [check(s, passages, question) for s in answer.statements]

"""The French text of the ANSM interaction thesaurus, shown in English.

The thesaurus writes its mechanisms and advice in a small, formulaic French ("Augmentation
des concentrations plasmatiques de X par diminution de son métabolisme hépatique"). A
glossary (``data/ansm/french_english.tsv``: the thesaurus's phrases and words with their
English, each adjective marked so it moves before its noun as English puts it) renders a
text word by word; drug names go through the drug dictionary's English name. A text with
a word the glossary does not hold is not guessed at: its key terms are given in English
instead, and said to be only the terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from docgemma.tools.ansm import drug_synonyms, normalize

GLOSSARY = Path(__file__).resolve().parents[2] / "data" / "ansm" / "french_english.tsv"
_TOKEN = re.compile(r"[0-9]+(?:[.,][0-9]+)?|[a-z]+|[.,;:()/%<>=+]")
_NO_SPACE_BEFORE = frozenset(".,;:)%/")
_NO_SPACE_AFTER = frozenset("(/")


def tokens(text: str) -> list[str]:
    """Words and punctuation of a normalised text; apostrophes and hyphens split words."""
    return _TOKEN.findall(normalize(text).replace("'", " ").replace("-", " "))


@dataclass(frozen=True)
class Glossary:
    entries: dict[tuple[str, ...], str]
    longest: int

    def english(self, key: tuple[str, ...]) -> str | None:
        return self.entries.get(key)


@lru_cache(maxsize=1)
def glossary() -> Glossary:
    entries: dict[tuple[str, ...], str] = {}
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        french, english = line.split("\t")
        entries.setdefault(tuple(tokens(french)), english)
    return Glossary(entries, max(len(k) for k in entries))


@lru_cache(maxsize=4096)
def drug_name(word: str) -> str | None:
    """The drug dictionary's name for a French drug name ("rifampicine" → "rifampicin")."""
    for spelling in (word, word.removesuffix("e")):  # French names add an e: "rifampicine"
        names = drug_synonyms(spelling) if len(spelling) > 3 else []
        if names:
            return names[0].lower()
    return None


@dataclass(frozen=True)
class Rendering:
    text: str
    """The English text, or its key terms joined when ``complete`` is false."""
    complete: bool

    def said(self, label: str) -> str:
        """``label: text``, saying so when only the key terms could be given."""
        if self.complete:
            return f"{label}: {self.text}"
        return f"{label} (key terms only; the French text is not translated in full): {self.text}."


def _lookup(word: str) -> str | None:
    known = glossary().english((word,))
    if known is not None:
        return known
    if word[0].isdigit():
        return word
    if (name := drug_name(word)) is not None:
        return name
    for cut in range(1, len(word)):  # words the thesaurus glued ("laposologie", "dudiltiazem")
        head = glossary().english((word[:cut],))
        tail = glossary().english((word[cut:],)) or drug_name(word[cut:])
        if head is not None and tail is not None:
            return " ".join(x for x in (head.lstrip("=+"), tail.lstrip("=+")) if x != "-")
    return None


def english(text: str) -> Rendering:
    """``text`` in English: whole when the glossary holds every word, else its key terms."""
    words = tokens(text)
    out: list[tuple[str, str]] = []  # (English, kind): kind is word, function, punct
    run_start: int | None = None  # where the current run of content words began
    missing = False
    n = 0
    table = glossary()
    while n < len(words):
        for size in range(min(table.longest, len(words) - n), 0, -1):
            found = table.english(tuple(words[n : n + size]))
            if found is not None:
                break
        else:
            size, found = 1, None
        if found is None and size == 1:
            found = _lookup(words[n])
        n += size
        word = words[n - 1]
        if found is None:
            if not _TOKEN.fullmatch(word) or word.isalnum():
                missing = True
            out.append((word, "missing" if word.isalnum() else "punct"))
            run_start = None
        elif found == "-":
            continue
        elif found.startswith("="):
            out.append((found[1:], "function"))
            run_start = None
        elif found.startswith("+") and run_start is not None:
            out.insert(run_start, (found[1:], "word"))
        else:
            if run_start is None:
                run_start = len(out)
            out.append((found.lstrip("+"), "word"))
    if missing:
        terms = list(dict.fromkeys(t for t, kind in out if kind == "word"))
        return Rendering("; ".join(terms), complete=False)
    return Rendering(_join(out), complete=True)


def _join(parts: list[tuple[str, str]]) -> str:
    text = ""
    for word, _ in parts:
        if not text or word in _NO_SPACE_BEFORE or text[-1] in _NO_SPACE_AFTER:
            text += word
        else:
            text += " " + word
    sentences = re.split(r"(?<=[.;:]) ", text)
    return " ".join(s[:1].upper() + s[1:] for s in sentences if s)

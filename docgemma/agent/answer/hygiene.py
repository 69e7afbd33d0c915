"""Model text a clinician must never see, found and removed by code.

Small models fail in recognisable ways whatever the question: they echo their
instructions, loop on a phrase, drift into another script, stop mid-sentence, or repeat
internal names and raw error text. ``clean`` removes what can be removed (reasoning spans,
turn tokens, links, tool names); ``defects`` names what makes a text unusable. Pure
functions of text, used on every statement and on any free-text answer.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping

from docgemma.agent.rules import scrub_tool_names
from docgemma.llm.thinking import DELIMITERS

THINKING_SPANS: tuple[tuple[str, str], ...] = tuple(
    dict.fromkeys(
        [("<thinking>", "</thinking>"), *((d.open, d.close) for d in DELIMITERS.values())]
    )
)
"""Open/close pairs around model reasoning; the span and its content are removed."""
_THINKING = re.compile(
    "|".join(f"{re.escape(o)}.*?(?:{re.escape(c)}|\\Z)" for o, c in THINKING_SPANS), re.DOTALL
)
_STRAY = re.compile("|".join(re.escape(c) for _, c in THINKING_SPANS))
_SPECIAL = re.compile(r"<(?:start|end)_of_turn>|<\|im_(?:start|end)\|>|<unused\d+>")
_RAW_ERROR = re.compile(
    r"Traceback|\b\w*(?:Error|Exception):|\bHTTP \d{3}\b|status code \d{3}|\berrno\b|\{\s*\"",
    re.IGNORECASE,
)
_LINK_TARGET = re.compile(r"(?<=\])\([^)\n]*\)")
_URL = re.compile(r"\(?(?:https?://|www\.)[^\s)]+\)?")
_CITATION = re.compile(r"\s*\[\d{1,2}\]")
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_ECHO_WORDS = 7
_LOOP_WORDS, _LOOPS = 6, 3
_CUT_MIN_WORDS = 40
_LATIN_LIKE = {"LATIN", "GREEK", "MICRO", "SCRIPT", "DOUBLE-STRUCK", "MASCULINE", "FEMININE"}
"""Scripts of English clinical prose (β-blocker, µg, ℓ); a letter of any other counts as
foreign unless the question has that script too."""


def clean(text: str, labels: Mapping[str, str]) -> str:
    """``text`` without reasoning spans, turn tokens, links, citation markers of its own,
    and with internal tool names replaced by their clinical labels."""
    text = _STRAY.sub("", _THINKING.sub("", text))
    text = _URL.sub("", _LINK_TARGET.sub("", _SPECIAL.sub("", text)))
    text = _CITATION.sub("", text)
    text = scrub_tool_names(text, dict(labels))
    return re.sub(r"[ \t]{2,}", " ", re.sub(r"\n{3,}", "\n\n", text)).strip()


def reasoning_in(text: str) -> str:
    """The reasoning a model wrote inside its answer (a served reasoning model's spans)."""
    return "\n".join(m.group(0) for m in _THINKING.finditer(text))


def clean_reasoning(text: str, labels: Mapping[str, str]) -> str:
    """Reasoning as the thinking channel shows it: its words kept, delimiters, turn tokens
    and internal tool names not."""
    for open_, close in THINKING_SPANS:
        text = text.replace(open_, "").replace(close, "")
    return scrub_tool_names(_SPECIAL.sub("", text), dict(labels))


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _grams(tokens: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def scripts(text: str) -> set[str]:
    return {(unicodedata.name(ch, "UNKNOWN").split(" ")[0]) for ch in set(text) if ch.isalpha()}


_OPEN_END = re.compile(r"\b(?:a|an|the|and|or|of|with|to)\W*$")
"""A text ending on an article or a joining word ("…, and a.") stopped mid-phrase; lower
case only, so "hepatitis A." is a finished sentence."""


def defects(text: str, *, question: str, instructions: str = "") -> list[str]:
    """What makes ``text`` unusable, in words for the timeline; empty when it is fine."""
    said = words(text)
    if not said:
        return ["empty"]
    found = []
    told = set(_grams(words(instructions), _ECHO_WORDS))
    if told and any(g in told for g in _grams(said, _ECHO_WORDS)):
        found.append("repeats its instructions")
    if any(n >= _LOOPS for n in Counter(_grams(said, _LOOP_WORDS)).values()):
        found.append("repeats itself")
    if scripts(text) - _LATIN_LIKE - scripts(question):
        found.append("text in an unexpected script")
    if _RAW_ERROR.search(text):
        found.append("raw error text")
    if _OPEN_END.search(text):
        found.append("breaks off mid-phrase")
    return found


def finished(text: str) -> bool:
    """``text`` ends as a sentence or list item does."""
    return bool(re.search(r"[.!?)\]:*]\s*$", text))


def whole_sentences(text: str) -> str:
    """``text`` up to the end of its last complete sentence; empty when it has none."""
    if finished(text):
        return text
    cut = max(text.rfind(". "), text.rfind(".\n"), text.rfind("? "), text.rfind("! "))
    return text[: cut + 1] if cut > 0 else ""


def unfinished_end(text: str) -> str:
    """A long text the token limit stopped, ended at its last complete sentence."""
    if len(words(text)) < _CUT_MIN_WORDS:
        return text
    return whole_sentences(text) or text


def same(a: str, b: str) -> bool:
    """Two statements that say the same words."""
    return words(a) == words(b)

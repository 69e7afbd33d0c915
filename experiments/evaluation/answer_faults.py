"""The scorer's own check of an answer shown to a clinician: is it junk?

Written apart from the agent's guard (``docgemma.agent.answer.hygiene``) and sharing no code
with it, so "degenerate answers shown" measures what got past the guard instead of being
zero by construction. Each fault is a short label; ``answer_faults`` returns every one found:

- ``empty``: nothing, or only punctuation;
- ``prompt_echo``: chat-template or instruction text, or the question repeated as the answer;
- ``repeated_lines`` / ``repeated_trigrams``: a line, or a run of three words, said over and over;
- ``unexpected_script``: letters of a script neither English nor the question uses;
- ``cut_off``: the answer stops mid-sentence (a dangling word, comma or open bracket);
- ``tool_name``: an internal tool or function name;
- ``raw_error`` / ``raw_json`` / ``raw_fhir``: error text, JSON or FHIR resources as such.

Pure functions of text.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

ECHO_MARKERS = (
    "<|im_start|>",
    "<|im_end|>",
    "<start_of_turn>",
    "<end_of_turn>",
    "[inst]",
    "<<sys>>",
    "### instruction",
    "### system",
    "system prompt",
    "you are docgemma",
    "you are a clinical decision",
    "you are a helpful",
    "user query:",
    "clinician's question:",
    "information retrieved:",
    "respond in json",
)
"""Pieces of model instructions or chat templates; none belongs in an answer."""
ERROR_PATTERNS = re.compile(
    r"traceback \(most recent call last\)|\b\w+(?:error|exception)\b:|\berrno\b|"
    r"\bstatus code \d{3}\b|\bhttp [45]\d\d\b|\b(?:connecterror|readtimeout|keyerror|"
    r"valueerror|typeerror|runtimeerror)\b|\bnonetype\b",
    re.IGNORECASE,
)
FHIR_PATTERNS = re.compile(
    r"\bresourcetype\b|\burn:uuid:|\bhttp://loinc\.org\b|\bhttp://snomed\.info\b|"
    r"\b(?:Patient|Observation|MedicationRequest|AllergyIntolerance|Condition)/[\w-]+\b|"
    r"\"(?:valueQuantity|medicationCodeableConcept|dosageInstruction|entry)\"",
)
SNAKE_CALL = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\s*\(")
EXPECTED_SCRIPTS = frozenset({"LATIN", "GREEK", "COMMON"})
"""English prose, Greek letters of units and symbols (µg, α-blocker), digits, punctuation."""
DANGLING_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "with",
        "for",
        "in",
        "on",
        "at",
        "by",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "than",
        "that",
        "which",
        "who",
        "whose",
        "if",
        "because",
        "such",
        "including",
        "e.g",
        "i.e",
    ]
)
CLOSING = ".!?)]}\"'”’*:…_|`>"
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
_LIST = re.compile(r"^\s*(?:[-*•+]|\d+[.)]|#+)\s")


def _lines(text: str) -> list[str]:
    return [" ".join(line.lower().split()) for line in text.splitlines() if line.strip()]


def _script(char: str) -> str:
    if not char.isalpha():
        return "COMMON"
    name = unicodedata.name(char, "")
    return name.split(" ")[0] if name else "UNKNOWN"


def scripts_of(text: str) -> Counter[str]:
    """Letters per script (the first word of each character's Unicode name)."""
    return Counter(_script(c) for c in text if c.isalpha())


def echoes_prompt(answer: str, question: str) -> bool:
    low = answer.lower()
    if any(marker in low for marker in ECHO_MARKERS):
        return True
    asked = " ".join(question.lower().split())
    said = " ".join(low.split())
    # the question as the whole answer, or as most of it
    return len(asked) >= 20 and asked in said and len(asked) >= 0.6 * len(said)


def repeated_lines(answer: str) -> bool:
    lines = [line for line in _lines(answer) if len(line) >= 15]
    if any(a == b for a, b in zip(lines, lines[1:], strict=False)):
        return True
    return any(n >= 3 for n in Counter(lines).values())


def repeated_trigrams(answer: str) -> bool:
    words = [w.lower() for w in _WORD.findall(answer)]
    grams = list(zip(words, words[1:], words[2:], strict=False))
    if len(grams) < 12:
        return False
    top = Counter(grams).most_common(1)[0][1]
    return top >= 5 and len(set(grams)) / len(grams) < 0.5


def unexpected_script(answer: str, question: str = "") -> bool:
    allowed = EXPECTED_SCRIPTS | set(scripts_of(question))
    stray = sum(n for script, n in scripts_of(answer).items() if script not in allowed)
    return stray >= 2


def cut_off(answer: str) -> bool:
    text = answer.rstrip()
    if not text:
        return False
    if text.count("(") > text.count(")") or text.count("**") % 2 or text.count("```") % 2:
        return True
    last_line = text.splitlines()[-1]
    if text[-1] in ",;(-–/&+=":
        return True
    words = _WORD.findall(last_line)
    if words and words[-1].lower() in DANGLING_WORDS and text[-1] not in CLOSING:
        return True
    # a prose line (not a list item or heading) of several words that never ends
    return (
        text[-1] not in CLOSING
        and not text[-1].isdigit()
        and not _LIST.match(last_line)
        and len(words) >= 6
    )


def names_tools(answer: str, tool_names: Iterable[str]) -> bool:
    low = answer.lower()
    return any(name.lower() in low for name in tool_names) or bool(SNAKE_CALL.search(answer))


def raw_error(answer: str) -> bool:
    return bool(ERROR_PATTERNS.search(answer))


def raw_json(answer: str) -> bool:
    text = answer.strip().strip("`").removeprefix("json").strip()
    if text[:1] in "{[":
        try:
            json.loads(text)
        except ValueError:
            pass
        else:
            return True
    return bool(re.search(r"\{\s*\"[\w ]+\"\s*:", answer))


def raw_fhir(answer: str) -> bool:
    return bool(FHIR_PATTERNS.search(answer))


def answer_faults(answer: str, question: str = "", tool_names: Iterable[str] = ()) -> list[str]:
    """Every fault of ``answer`` (an empty list: nothing wrong with it as text)."""
    if not re.search(r"\w", answer or ""):
        return ["empty"]
    checks = {
        "prompt_echo": echoes_prompt(answer, question),
        "repeated_lines": repeated_lines(answer),
        "repeated_trigrams": repeated_trigrams(answer),
        "unexpected_script": unexpected_script(answer, question),
        "cut_off": cut_off(answer),
        "tool_name": names_tools(answer, tool_names),
        "raw_error": raw_error(answer),
        "raw_json": raw_json(answer),
        "raw_fhir": raw_fhir(answer),
    }
    return [name for name, found in checks.items() if found]

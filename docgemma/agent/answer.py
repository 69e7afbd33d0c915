"""The parts of the final answer that code writes: fallback text, clean-up, follow-ups.

Follow-up questions come from templates keyed on what the turn touched (drugs,
patient, tools), not from the model: a 270M model does not write useful ones, and
templates keep the model-call count of every path exact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgemma.agent.rules import scrub_tool_names
from docgemma.agent.state import ToolResult
from docgemma.llm.thinking import DELIMITERS

FALLBACK_MESSAGE = (
    "The language model is unavailable right now, so I cannot write a full answer. "
    "Please try again in a moment."
)
EMPTY_ANSWER = (
    "I could not produce an answer to that just now. Please rephrase the question or try again."
)
FOUND_HEADER = "Here is what I found:"

# What never reaches the clinician, listed once for ``clean_answer`` and the stream filter.
THINKING_SPANS: tuple[tuple[str, str], ...] = tuple(
    dict.fromkeys(
        [("<thinking>", "</thinking>"), *((d.open, d.close) for d in DELIMITERS.values())]
    )
)
"""Open/close pairs around model reasoning; the span and its content are hidden."""
SPECIAL_TOKEN_PATTERN = r"<(?:start|end)_of_turn>|<\|im_(?:start|end)\|>|<unused\d+>"
RAW_ERROR_WORDS = r"Traceback|Exception|status code|HTTP \d{3}|errno"
"""A line with one of these is a raw error the model repeated; the line is dropped."""

_THINKING_RE = re.compile(
    "|".join(f"{re.escape(o)}.*?(?:{re.escape(c)}|\\Z)" for o, c in THINKING_SPANS), re.DOTALL
)
_STRAY_CLOSE_RE = re.compile("|".join(re.escape(c) for _, c in THINKING_SPANS))
_RAW_ERROR_RE = re.compile(rf"^.*({RAW_ERROR_WORDS}).*$", re.IGNORECASE | re.MULTILINE)
_SPECIAL_TOKEN_RE = re.compile(SPECIAL_TOKEN_PATTERN)


def results_digest(results: Sequence[ToolResult]) -> str:
    found = [
        f"- {r['tool_label']}: {r['formatted_result'][:400]}"
        for r in results
        if r["error_type"] is None
    ]
    return (FOUND_HEADER + "\n" + "\n".join(found)) if found else ""


def fallback_answer(results: Sequence[ToolResult], notes: Sequence[str]) -> str:
    """Seed 001's fallback: a pre-written message plus whatever the tools already returned."""
    parts = [FALLBACK_MESSAGE, results_digest(results), *dict.fromkeys(notes)]
    return "\n\n".join(p for p in parts if p)


_MIN_ECHO_WORDS = 3
_LEFTOVER_RE = re.compile(r"^[ \t\-*•:]+$", re.MULTILINE)


def instruction_patterns(instructions: str) -> list[str]:
    """One pattern per sentence or bullet of the instructions; any case, across line breaks."""
    flat = " ".join(instructions.split())
    patterns = []
    for phrase in re.split(r"(?<=[.:])\s+|\s+-\s+", flat):
        words = phrase.strip(" -.:").split()
        if len(words) >= _MIN_ECHO_WORDS:
            patterns.append("(?i:" + r"\s+".join(map(re.escape, words)) + r"[.:]?)")
    return patterns


def drop_echoed_instructions(text: str, instructions: str) -> str:
    """Remove the instructions' sentences and bullets wherever the answer repeats them.

    Small base models echo their system prompt, often re-wrapped, which would show the
    clinician the assistant's internal instructions.
    """
    for pattern in instruction_patterns(instructions):
        text = re.sub(pattern, "", text)
    return _LEFTOVER_RE.sub("", text)


def strip_thinking(text: str) -> str:
    """Drop reasoning spans (an unterminated one runs to the end) and stray close tags."""
    return _STRAY_CLOSE_RE.sub("", _THINKING_RE.sub("", text))


def clean_answer(text: str, labels: dict[str, str], instructions: str = "") -> str:
    """Model output without reasoning, turn tokens, echoed instructions, tool names, raw errors."""
    text = _SPECIAL_TOKEN_RE.sub("", strip_thinking(text))
    text = drop_echoed_instructions(text, instructions)
    text = _RAW_ERROR_RE.sub("", text)
    text = scrub_tool_names(text, labels)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def with_notes(text: str, notes: Sequence[str]) -> str:
    """Make sure every must-know note (failures, rejections) is in the answer, once."""
    missing = [n for n in dict.fromkeys(notes) if n and n not in text]
    return "\n\n".join([text, *(f"Note: {n}" for n in missing)]) if missing else text


def follow_up_questions(*, drugs: Sequence[str], tools: Sequence[str], patient: bool) -> list[str]:
    """Three follow-up questions for the clinician, chosen from templates."""
    options: list[str] = []
    if drugs:
        d = drugs[0]
        options += [
            f"What should be monitored in a patient taking {d}?",
            f"Does {d} need a dose adjustment in renal impairment?",
        ]
        if len(drugs) > 1:
            options.append(f"Is there a safer alternative to combining {drugs[0]} and {drugs[1]}?")
    if patient or any(t in tools for t in ("get_patient_chart", "search_patient")):
        options += [
            "What are this patient's current medications and allergies?",
            "Are any of this patient's recent lab results abnormal?",
        ]
    if "search_medical_literature" in tools or "find_clinical_trials" in tools:
        options.append("What do current guidelines recommend for this condition?")
    options += [
        "What are the first-line management options?",
        "Which findings should prompt urgent referral?",
        "Which investigations would help confirm this?",
    ]
    return list(dict.fromkeys(options))[:3]

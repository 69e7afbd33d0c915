"""The parts of the final answer that code writes: fallback text, clean-up, follow-ups.

Follow-up questions come from templates keyed on what the turn touched (drugs,
patient, tools), not from the model: the smallest embedded models do not write useful ones, and
templates keep the model-call count of every path exact.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from docgemma.agent.rules import answered_tools, scrub_tool_names
from docgemma.agent.state import AgentState, ToolResult
from docgemma.kb.models import DEMO_NOTICE
from docgemma.llm.thinking import DELIMITERS
from docgemma.tools.facts import ToolRole
from docgemma.tools.outcomes import Note, ToolErrorType, error_message
from docgemma.tools.text import names

FALLBACK_MESSAGE = (
    "The language model is unavailable right now (its engine may be restarting), so I "
    "cannot write a full answer. Your conversation is kept: please ask again in a moment."
)
FOUND_HEADER = "Here is what I found:"
SOURCES_ONLY_MESSAGE = (
    "The model's written answer did not pass the automatic quality check, so it is not "
    "shown. Below are the key facts exactly as the sources returned them (no model text)."
)
NOT_RETRIEVED_MESSAGE = (
    "The model's written answer did not pass the automatic quality check, so it is not "
    "shown, and the information needed could not be retrieved (see the notes below)."
)
NOT_RETRIEVED_ANSWER = (
    "The information needed to answer this could not be retrieved, so no answer is given "
    "from the model's memory."
)
NO_RELIABLE_ANSWER = (
    "I could not produce a reliable answer to this question: the model's drafts did not pass "
    "the automatic quality check. Please rephrase the question or consult a reference source."
)

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
_OWN_REFERENCES_RE = re.compile(
    r"^[ \t#*_]*(?:references?|sources?|citations?|bibliography|further reading)[ \t*_:]*$.*",
    re.IGNORECASE | re.MULTILINE | re.DOTALL,
)
"""A reference list the model wrote itself, to the end: the app lists the sources it used,
and a small model may invent one ("American Diabetes Association. (2020) … [ADA website](https://…)")
even under an answer that had no source at all."""
URL_PATTERN = r"(?<!\()(?<!\( )(?:https?://|www\.)(?:[^\s<>()\[\].,;:!?'\"]|[.,;:!?'\"](?=\w))+"
"""A URL outside parentheses, without the punctuation that ends its sentence."""
LINK_TARGET_PATTERN = r"(?<=\])\([^)\n]*\)|\( ?(?:https?://|www\.)[^)\n]*\)"
"""The target of a Markdown link in model text, or a URL in parentheses, dropped with them:
"[ADA website](https://…)" shows as "[ADA website]", "[1](https://…)" as the citation "[1]".
The model cannot be trusted with a URL (invented, or copied from a source's text); the real
links are the numbered sources'. ``URL_PATTERN`` leaves these to this one, so that a stream
held at "](" is not cut at the URL inside."""
_LINK_TARGET_RE = re.compile(f"{LINK_TARGET_PATTERN}|{URL_PATTERN}")
_LINK_DEFINITION_RE = re.compile(r"^[ \t]*\[[^\]\n]+\]:.*$\n?", re.MULTILINE)
"""A Markdown reference definition ("[1]: https://…"), which would make "[1]" a live link."""
COPIED_NOTICE_PATTERN = r"\(?" + re.escape(DEMO_NOTICE) + r"\)?"
"""The condition pages' demonstration notice, which the model copies into its sentences
("The condition pages on croup (Demonstration content …) indicate …"); the sources list
names the page as a demonstration page."""
_AUTHOR = r"[A-Z][A-Za-z'’-]+"
_YEAR = r"(?:19|20)\d{2}[a-z]?"
AUTHOR_YEAR_PATTERN = (
    rf"\((?:see )?{_AUTHOR}(?: et al\.?| (?:and|&) {_AUTHOR})?,? {_YEAR}(?:;[^)]*)?\)"
)
"""An author-year citation in model text, dropped: "(Nelson et al., 2012)". The model has no
reference it could be citing; the app lists the sources it used."""
_AUTHOR_YEAR_RE = re.compile(r"[ \t]*" + AUTHOR_YEAR_PATTERN)
_REFERENCE_ENTRY_RE = re.compile(
    rf"^[ \t]*(?:\d+[.)]|[-*•])?[ \t]*[A-Z](?:[^\n.]|et al\.){{0,80}}?[.,] \(?{_YEAR}\)?\..*$\n?"
    r"|^.*\b\d+[ \t]?\(\d+\)[ \t]?[:,][ \t]?\d+[-–]\d+.*$\n?",
    re.MULTILINE,
)
"""A bibliography entry the model wrote without a heading: names, then the year as its own
item ("Nelson et al., 2012. Hyperkalemia: …", "American Diabetes Association. (2020).
…"), or any line with a volume(issue): pages reference ("11(6), 1200-1208")."""


KEY_FACT_CHARS = 700
"""Per tool result: what the synthesis prompt and the code-written answers keep of it."""
_LINE_CHARS = 300


def _clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters at a sentence end when one is near, else a word."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return (cut[: end + 1] if end > limit // 3 else cut.rsplit(" ", 1)[0]) + " …"


def key_facts(text: str, limit: int = KEY_FACT_CHARS) -> str:
    """A tool result's leading facts: each line to its first sentences, the whole to ``limit``.

    Tool results put what matters first (the boxed warning, the top article), so the
    head of each line carries the key facts and a 2-core prefill stays short.
    """
    kept: list[str] = []
    used = 0
    for raw in text.splitlines():
        line = _clip(raw.strip(), _LINE_CHARS)
        if not line:
            continue
        if used + len(line) > limit:
            if not kept:
                kept.append(_clip(line, limit))
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept)


def _source_line(result: ToolResult) -> str:
    titles = [
        s["title"] + (f" ({s['url']})" if s.get("url") else "") for s in result["sources"][:3]
    ]
    # ended like a sentence: a line ending in a record id reads as cut off
    return f"  Source: {'; '.join(titles)}." if titles else ""


def results_digest(results: Sequence[ToolResult]) -> str:
    """The successful results' key facts, each under its label with its sources; code only."""
    found = []
    for r in results:
        if r["error_type"] is None:
            facts = key_facts(r["formatted_result"]).replace("\n", "\n  ")
            found.append(
                "\n".join(p for p in (f"- {r['tool_label']}: {facts}", _source_line(r)) if p)
            )
    return (FOUND_HEADER + "\n" + "\n".join(found)) if found else ""


def checked_fallback(results: Sequence[ToolResult], notes: Sequence[str]) -> str:
    """The answer when the model's drafts failed the answer check: sources' facts, no model text."""
    digest = results_digest(results)
    if digest:
        return f"{SOURCES_ONLY_MESSAGE}\n\n{digest}"
    if notes:
        return NOT_RETRIEVED_MESSAGE
    return NO_RELIABLE_ANSWER


def fallback_answer(results: Sequence[ToolResult], notes: Sequence[str]) -> str:
    """The fallback when the model is unavailable: a pre-written message plus whatever the tools
    already returned, so a turn never ends with nothing."""
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


UNVERIFIED_NOTE = (
    "⚠️ *Unverified: written from the model's own general knowledge — no offline source "
    "covering this question was found. Check it against a trusted reference before acting "
    "on it.*"
)
GROUNDED_NOTE = "*Based on an offline source: “{title}” (see Sources).*"
_KNOWLEDGE_NOTE_RE = re.compile(
    rf"^.*(?:{re.escape(UNVERIFIED_NOTE[:24])}|{re.escape(GROUNDED_NOTE[:30])}).*$", re.MULTILINE
)
"""A knowledge label the model copied from an earlier answer in the conversation."""
_COPIED_NOTICE_RE = re.compile(r"[ \t]*" + COPIED_NOTICE_PATTERN)


_MIN_REPEATED_WORDS = 5
"""A shorter question may rightly be answered in its own words ("Hello." to "Hello")."""


def drop_repeated_question(text: str, question: str) -> str:
    """``text`` without a line that only repeats the question, when more remains: a model may
    open a long answer with the clinician's request, word for word."""
    asked = " ".join(question.lower().split()).rstrip(".?!")
    if len(asked.split()) < _MIN_REPEATED_WORDS:
        return text
    kept = [
        line
        for line in text.splitlines()
        if " ".join(line.lower().strip(" *#>").split()).rstrip(".?!:") != asked
    ]
    return "\n".join(kept) if "".join(kept).strip() else text


def clean_answer(
    text: str, labels: dict[str, str], instructions: str = "", question: str = ""
) -> str:
    """Model output without reasoning, turn tokens, echoed instructions or question, tool
    names, raw errors, references, citations and link targets of its own, or copies of the
    app's labels."""
    text = _SPECIAL_TOKEN_RE.sub("", strip_thinking(text))
    text = drop_repeated_question(drop_echoed_instructions(text, instructions), question)
    text = _RAW_ERROR_RE.sub("", text)
    text = _OWN_REFERENCES_RE.sub("", _LINK_DEFINITION_RE.sub("", text))
    text = _LINK_TARGET_RE.sub("", text)
    text = _REFERENCE_ENTRY_RE.sub("", _AUTHOR_YEAR_RE.sub("", text))
    text = _COPIED_NOTICE_RE.sub("", _KNOWLEDGE_NOTE_RE.sub("", text))
    text = scrub_tool_names(text, labels)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


LEFT_OUT_NOTE = (
    "{count} of the model's answer {verb} left out: {pronoun} named {what}. "
    "The reasoning timeline shows {pronoun2}."
)
LEFT_OUT_WHAT = {
    True: (
        "things the source excerpts it was given do not mention",
        "not supported by the sources",
    ),
    False: ("a drug that no drug dictionary knows", "naming a drug no dictionary knows"),
}
"""Why statements were left out, by whether the answer rests on sources: in the note and in
the timeline."""


def left_out_note(count: int, *, sourced: bool = True) -> str:
    """What the clinician is told when statements were dropped from the answer."""
    one = count == 1
    return LEFT_OUT_NOTE.format(
        count="One statement" if one else f"{count} statements",
        verb="was" if one else "were",
        pronoun="it" if one else "they",
        pronoun2="it" if one else "them",
        what=LEFT_OUT_WHAT[sourced][0],
    )


def left_out_detail(sentences: Sequence[str], *, sourced: bool = True) -> str:
    """The statements left out, quoted, for the timeline."""
    quoted = "; ".join(f"“{s}”" for s in sentences)
    return f"left out as {LEFT_OUT_WHAT[sourced][1]}: {quoted}"


def knowledge_note(text: str, source_title: str | None) -> str:
    """A knowledge answer either names the offline source it rests on or says it has none."""
    note = GROUNDED_NOTE.format(title=source_title) if source_title else UNVERIFIED_NOTE
    return f"{text}\n\n{note}"


ASKED_ABOUT = frozenset(
    {ToolErrorType.MISSING_REQUIRED_ARGS, ToolErrorType.MULTIPLE_PATIENT_MATCHES}
)
"""Failures answered by a question to the clinician, not reported as missing information."""


def error_notes(state: AgentState) -> list[str]:
    """Pre-formatted messages for what failed and never succeeded later in the turn, one
    per failed source."""
    results = state.get("tool_results", [])
    succeeded = answered_tools(results)
    failed = [
        r
        for r in results
        if r["error_type"]
        and r["tool_name"] not in succeeded
        and r["error_type"] not in ASKED_ABOUT
    ]
    # a failed tool's own message says more than the handler's generic one about it
    labels = {r["tool_label"] for r in failed}
    notes = [m for m in state.get("error_messages", []) if not any(x in m for x in labels)]
    return list(dict.fromkeys([*notes, *(r["formatted_result"] for r in failed)]))


def unchecked_notes(answer: str, results: Sequence[ToolResult]) -> list[str]:
    """A note for each thing a source could not check that the answer leaves unnamed: the
    clinician must not read silence about dofetilide as "no interaction"."""
    return [
        error_message(Note.UNCHECKED, r["tool_label"], entity=item)
        for r in results
        if r["error_type"] is None
        for item in r["unchecked"]
        if not names(answer, item)
    ]


def with_notes(text: str, notes: Sequence[str]) -> str:
    """Make sure every must-know note (failures, rejections) is in the answer, once."""
    missing = [n for n in dict.fromkeys(notes) if n and n not in text]
    return "\n\n".join([text, *(f"Note: {n}" for n in missing)]) if missing else text


def follow_up_questions(
    *, drugs: Sequence[str], roles: Collection[ToolRole | None], patient: bool
) -> list[str]:
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
    if patient or ToolRole.FINDS_PATIENT in roles or ToolRole.READS_CHART in roles:
        options += [
            "What are this patient's current medications and allergies?",
            "Are any of this patient's recent lab results abnormal?",
        ]
    if ToolRole.SEARCHES_EVIDENCE in roles:
        options.append("What do current guidelines recommend for this condition?")
    options += [
        "What are the first-line management options?",
        "Which findings should prompt urgent referral?",
        "Which investigations would help confirm this?",
    ]
    return list(dict.fromkeys(options))[:3]

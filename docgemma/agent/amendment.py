"""A declined record write asked for again, with what the clinician changes.

After a Reject the clinician is told to say what to change; the usual reply refers to the
declined card rather than dictating it anew: "Save it again with 'Review in 2 weeks'
added", "Same note, but add: patient counselled on sick-day rules", "Resubmit as a
consult note". A small model cannot rebuild the note from such a reply (it takes the
addition for the whole note, or loses it), so code does: the declined arguments, the
clinician's added words after the dictated text, and any closed field the reply states
(a note type, a frequency). The result is a new card; nothing is written until the
clinician approves it.

Pure functions of the message and the declined write; the nodes keep the state.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypedDict

from docgemma.agent.dictation import durations
from docgemma.tools.args import vocabulary_of
from docgemma.tools.base import ToolSpec
from docgemma.tools.grounding import Grounding, field_grounding

_I = re.IGNORECASE
_WRITE_WORDS = (
    r"save|write|file|propose|submit|send|order|prescribe|record|document|put|enter|do|try"
    r"|make|create|draft"
)
_AGAIN = re.compile(
    rf"\b(?:(?:{_WRITE_WORDS})\s+(?:it|that|this|the\s+\w+|(?:the\s+)?same(?:\s+\w+)?)\s+again"
    rf"|(?:{_WRITE_WORDS})\s+again|re-?submit\w*|re-?propos\w*|re-?send\w*|redo"
    r"|same\s+(?:note|order|prescription|allergy|entry|one|thing|again)\b(?:\s*,)?"
    r"\s*(?:but|with|and|plus|adding|except)?)",
    _I,
)
"""A request for the declined card again: "save it again", "resubmit", "same note but"."""
_ADD_TO = re.compile(
    r"\b(?:add|append|include|put)\b.+?\b(?:to|in|into|at\s+the\s+end\s+of)\s+"
    r"(?:it|that|this|the\s+(?:note|order|prescription|entry|card|end))\b",
    _I,
)
"""Words to put into the declined write: "add 'review in 2 weeks' to the note"."""
_QUOTED = re.compile(r"[\"“”«»']([^\"“”«»']*\w[^\"“”«»']*)[\"“”«»']")
"""Quoted words ('…' too: a clinician quoting the addition); an apostrophe inside a word
("patient's") has a letter on both sides and does not open a quotation here."""
_WITH_ADDED = re.compile(
    r"\bwith\s+(?P<words>.+?)\s+(?:added|appended|included|at\s+the\s+end)\b", _I
)
_ADD_WORDS = re.compile(
    r"\b(?:adding|add|append|appending|include|including|plus|also\s+(?:say|mention|note))\b"
    r"(?:\s+that\b)?\s*:?\s*(?P<words>.+?)"
    r"(?:\s+(?:to|in|into|at\s+the\s+end\s+of)\s+(?:it|that|this|the\s+(?:note|order|"
    r"prescription|entry|card|end))\b.*)?\s*$",
    _I,
)
_ALONE_QUOTE = re.compile(r"(?<=\w)'(?=\w)")


MAX_TURNS_AFTER = 3
"""How many turns after the Reject "again" still means the declined card."""


class DeclinedWrite(TypedDict):
    """A write the clinician rejected, as kept in the state."""

    tool: str
    args: dict[str, Any]
    turn: int


def declined_write(spec: ToolSpec, args: dict[str, Any], turn: int) -> DeclinedWrite:
    return DeclinedWrite(tool=spec.name, args=dict(args), turn=turn)


def still_meant(declined: Mapping[str, Any], turn: int) -> bool:
    """The declined card is recent enough for "save it again" to mean it."""
    return turn - int(declined.get("turn", 0)) <= MAX_TURNS_AFTER


def asks_again(message: str) -> bool:
    """The message asks for the declined card again, as it was or changed."""
    return bool(_AGAIN.search(message) or _ADD_TO.search(message))


def addition(message: str) -> str | None:
    """The words the clinician adds to the dictated text, as typed; None when it adds none.

    Quoted words first; then "with … added"; then what follows "add" / "adding" /
    "include" ("add that she was counselled", "adding: review in 2 weeks"), without a
    closing "to the note".
    """
    guarded = _ALONE_QUOTE.sub("\0", message)  # "patient's": not a quotation mark
    quoted = [q.replace("\0", "'").strip() for q in _QUOTED.findall(guarded)]
    if quoted:
        return " ".join(quoted)
    for pattern in (_WITH_ADDED, _ADD_WORDS):
        if found := pattern.search(message):
            words = found.group("words").strip(" ,;:-")
            if re.search(r"\w", words):
                return words
    return None


def _joined(text: str, more: str) -> str:
    text = text.rstrip()
    stop = "" if not text or text[-1] in ".!?;:" else "."
    return f"{text}{stop} {more}" if text else more


def amended(spec: ToolSpec, declined: Mapping[str, Any], message: str) -> dict[str, Any]:
    """The declined write's arguments with the message's changes: the added words after
    the dictated text, a closed field's value the message states, a stated duration. With
    none ("save it again"), the same arguments: a new card, for a Reject given by mistake."""
    args = dict(declined["args"])
    more = addition(message)
    rest = message.replace(more, " ") if more else message  # closed fields: not the addition
    for name, kind in field_grounding(spec.args).items():
        if kind is Grounding.DICTATED and more:
            args[name] = _joined(str(args.get(name) or ""), more)
        elif kind is Grounding.STATED and (stated := vocabulary_of(spec.args, name).stated(rest)):
            args[name] = stated[0]
        elif kind is Grounding.VERBATIM and name == "duration" and (said := durations(rest)):
            args[name] = said[0]
    return args

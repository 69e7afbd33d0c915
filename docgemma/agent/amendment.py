"""A record write asked for again, or corrected, in the clinician's words.

After a Reject the clinician is told to say what to change; the usual reply refers to the
declined card rather than dictating it anew: "Save it again with 'Review in 2 weeks'
added", "Same note, but add: patient counselled on sick-day rules", "Resubmit as a
consult note". After an Approve, a slip is corrected the same way: "Correction: make that
20 mg nightly", "Change it to twice daily". A small model cannot rebuild the write from
such a reply (it takes the addition for the whole note, loses it, or looks the drug up),
so code does: the earlier arguments, the clinician's added words after the dictated text
(or, in a correction, quoted words in place of it), and any dose, drug, duration or
closed field (a note type, a frequency) the reply states. The result is a new card;
nothing is written until the clinician approves it, and a card correcting a saved entry
says so, since approving it marks that entry entered in error.

Pure functions of the message and the earlier write; the nodes keep the state.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

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
_CORRECTION = re.compile(
    r"^\W*correction\b"
    r"|\b(?:make|change|amend|correct)\s+(?:that|it|this|the\s+(?:dose|drug|frequency|route"
    r"|duration|note|note\s+type|order|prescription|allergy|severity|entry))\b"
    r"|\bi\s+meant\b(?!\s+to\b)|\bshould\s+(?:have\s+been|read)\b"
    r"|\binstead\s+of\b|\binstead\W*$",
    _I,
)
"""A correction of the latest write: "Correction: …", "make that 20 mg", "change it to
twice daily", "I meant 5 mg", "it should have been …", "20 mg instead (of 40 mg)". Not
"Instead, check …" (another request) nor "I meant to ask …"."""
_DOSE = re.compile(
    r"\b\d+(?:\.\d+)?\s*(?:mg|mcg|micrograms?|µg|g|grams?|units?|iu|ml|mmol)\b(?!\s*/)", _I
)
"""A dose with its unit ("20 mg", "0.5 mg", "10 units"); not a rate or concentration."""
_REPLACED_VALUE = re.compile(r"\b(?:instead\s+of|rather\s+than|not)\s+[^,.;:!?]*", _I)
"""The value a correction takes back ("20 mg, not 40 mg", "instead of twice daily"): its
words are not the new value."""


MAX_TURNS_AFTER = 3
"""How many turns after the Reject "again" still means the declined card."""


class Replacing(TypedDict):
    """The saved entry a correction's card replaces."""

    replaces: str
    """The record's entry, "MedicationRequest/…": approving marks it entered in error."""
    replaced: str
    """What it holds, in clinician terms (the summary its card had)."""


class DeclinedWrite(TypedDict):
    """A write the clinician rejected, as kept in the state."""

    tool: str
    args: dict[str, Any]
    turn: int
    replacing: NotRequired[Replacing]
    """Kept from a declined correction: asked for again, it still replaces that entry."""


class SavedWrite(TypedDict):
    """A write saved with the clinician's approval, and the entry it made in the record."""

    tool: str
    args: dict[str, Any]
    turn: int
    reference: str


def declined_write(
    spec: ToolSpec, args: dict[str, Any], turn: int, replacing: Replacing | None = None
) -> DeclinedWrite:
    declined = DeclinedWrite(tool=spec.name, args=dict(args), turn=turn)
    if replacing:
        declined["replacing"] = replacing
    return declined


def saved_write(spec: ToolSpec, args: dict[str, Any], turn: int, reference: str) -> SavedWrite:
    return SavedWrite(tool=spec.name, args=dict(args), turn=turn, reference=reference)


def still_meant(earlier: Mapping[str, Any], turn: int) -> bool:
    """The earlier card is recent enough for "save it again" or "make that …" to mean it."""
    return turn - int(earlier.get("turn", 0)) <= MAX_TURNS_AFTER


def asks_again(message: str) -> bool:
    """The message asks for the declined card again, as it was or changed."""
    return bool(_AGAIN.search(message) or _ADD_TO.search(message))


def corrects(message: str) -> bool:
    """The message corrects the latest write rather than asking something: a question
    ("should I make it 20 mg?") is not a correction."""
    return bool(_CORRECTION.search(message)) and not message.rstrip().endswith("?")


def doses(message: str) -> list[str]:
    """The doses the message states, as typed, in order."""
    return [" ".join(m.group(0).split()) for m in _DOSE.finditer(message)]


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


def amended(
    spec: ToolSpec, earlier: Mapping[str, Any], message: str, drugs: Sequence[str] = ()
) -> dict[str, Any]:
    """The earlier write's arguments with the message's changes: the added words after the
    dictated text (a correction's quoted words replace it), a closed field's value the
    message states, a stated duration or dose, and the drug when the message names exactly
    one (``drugs``: the names the drug dictionary found in it). With none ("save it
    again"), the same arguments: a new card, for a Reject given by mistake."""
    args = dict(earlier["args"])
    more = addition(message)
    rest = message.replace(more, " ") if more else message  # closed fields: not the addition
    taken_back = " ".join(m.group(0) for m in _REPLACED_VALUE.finditer(rest)).lower()
    rest = _REPLACED_VALUE.sub(" ", rest)
    drugs = [d for d in drugs if d.lower() not in taken_back]
    for name, kind in field_grounding(spec.args).items():
        if kind is Grounding.DICTATED and more:
            replace = corrects(message) and bool(_QUOTED.search(_ALONE_QUOTE.sub("\0", message)))
            args[name] = more if replace else _joined(str(args.get(name) or ""), more)
        elif kind is Grounding.STATED and (stated := vocabulary_of(spec.args, name).stated(rest)):
            args[name] = stated[0]
        elif kind is Grounding.VERBATIM and name == "duration" and (said := durations(rest)):
            args[name] = said[0]
        elif name == "dosage" and (dose := doses(rest)):
            args[name] = dose[0]
        elif (
            kind is Grounding.DRUG
            and isinstance(args.get(name), str)
            and len(drugs) == 1
            # another drug only with its dose, or in place of the one taken back: "I meant,
            # check it against warfarin" after a metformin order changes no order
            and (doses(rest) or str(args[name]).lower() in taken_back)
        ):
            args[name] = drugs[0]
    return args

"""A record write asked for again, or corrected, in the clinician's words.

After a Reject the clinician is told to say what to change; the usual reply refers to the
declined card rather than dictating it anew: "Save it again with 'Review in 2 weeks'
added", "Same note, but add: patient counselled on sick-day rules", "Resubmit as a
consult note". After an Approve, a slip is corrected the same way: "Correction: make that
20 mg nightly", "Change it to twice daily". Such a reply holds only the change, not the
write, so a model reading it alone cannot rebuild the write; code does: the earlier
arguments, the clinician's added words after the dictated text (or, when the correction
says the note should read them, quoted words in place of it), and any dose, drug,
duration or closed field (a note type, a frequency) the reply states. The result is a new
card; nothing is written until the clinician approves it, and a card correcting a saved
entry says so, since approving it marks that entry entered in error.

Pure functions of the message and the earlier writes; the nodes keep the state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NotRequired, TypedDict

from docgemma.agent.approval import summarize
from docgemma.agent.dictation import durations
from docgemma.agent.orders import ordered_write
from docgemma.tools.args import vocabulary_of
from docgemma.tools.base import ToolRegistry, ToolSpec
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
    r"|\b(?:make|change|amend|correct)\s+(?:that|it|this|the\s+(?:dose|frequency|route"
    r"|duration|note|note\s+type|order|prescription|allergy|severity|entry))\b"
    r"|\bi\s+meant\b(?!\s+to\s+ask)|\bshould\s+(?:have\s+been|read)\b"
    r"|\binstead\s+of\b|\binstead\W*$",
    _I,
)
"""A correction of the latest write: "Correction: …", "make that 20 mg", "change it to
twice daily", "I meant 5 mg", "it should have been …", "20 mg instead (of 40 mg)". Not
"Instead, check …" (another request) nor "I meant to ask …"."""
_ASKS = re.compile(
    r"^\W*(?:what|which|why|how|when|shall|is|are|should(?!\s+(?:have\s+been|read|say)\b))\b",
    _I,
)
"""A message opening as a question asks; it does not correct ("What if I make it 20 mg")."""
_EXPLICIT = re.compile(r"^\W*(?:correction|i\s+meant|no\b|sorry|oops)", _I)
"""A message that opens by saying it corrects: "Correction, start her on 20 mg instead" is
a correction even though it also reads as an order."""
_REQUEST = re.compile(r"^\W*(?:please\s+)?(?:can|could|would|will)\s+you\b", _I)
"""A request put as a question ("Could you make it 20 mg?") still corrects."""
_READS_AS = re.compile(
    r"\b(?:should\s+(?:have\s+)?read|(?:note|text|it|that|this)\s+should\s+(?:have\s+)?s(?:ay|aid)"
    r"|replace\s+(?:it|that|the\s+(?:note|text))\s+with)\b",
    _I,
)
"""A correction whose quoted words are the note's whole new text ("the note should read
'…'"); any other quoted words are added to it."""
_DOSE = re.compile(
    r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*"
    r"(?:mg|mcg|micrograms?|µg|g|grams?|units?|iu|ml|mmol)\b(?!\s*/)",
    _I,
)
"""A dose with its unit ("20 mg", "0.5 mg", "1,000 mg", "10 units"); not a rate ("mg/kg").
".5 mg" and "2,5 mg" are not read at all: a dose misread by a digit is worse than none."""
_TAKEN_BACK = re.compile(
    r"\b(?:instead\s+of|rather\s+than|not)\s+(?P<value>.*?)(?=\s*(?:[,.;:!?]|\bbut\b|$))"
    r"|\bfrom\s+(?P<whole>.+?)(?=\s+to\b)",
    _I,
)
"""The value a correction takes back ("20 mg, not 40 mg", "instead of atorvastatin",
"not 40 mg but 20 mg", "from 40 mg nightly to 20 mg"): not the new value."""
_DOSE_CHANGE = re.compile(r"\b(?:change|increase|reduce|decrease)\s+the\s+dose\b", _I)
"""A new dose: of the drug just saved, a correction of that write; of another, an order."""


MAX_TURNS_AFTER = 3
"""How many turns after a write "again" or "make that …" still means its card."""


class Replacing(TypedDict):
    """The saved entry a correction's card replaces."""

    replaces: str
    """The record's entry, "MedicationRequest/…": approving marks it entered in error."""
    replaced: str
    """What it holds, in clinician terms (the summary its card had)."""


class Reproposal(TypedDict):
    """A new card for the latest write, made by code from the clinician's reply."""

    tool: str
    args: dict[str, Any]
    why: str
    """For the timeline: a declined write asked for again, or a saved write corrected."""
    replacing: NotRequired[Replacing]
    ask: NotRequired[str]
    """The card lacks a required value: this question is asked instead of showing it."""


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
    ("should I make it 20 mg?", "What if I make it 20 mg") is not a correction."""
    if not _CORRECTION.search(message) or _ASKS.match(message):
        return False
    return not message.rstrip().endswith("?") or bool(_REQUEST.match(message))


def doses(message: str) -> list[str]:
    """The doses the message states, as typed, in order."""
    return [" ".join(m.group(0).split()) for m in _DOSE.finditer(message)]


def _taken_back(message: str) -> tuple[str, str]:
    """The message without the values it takes back, and those values. A dose taken back
    ("instead of 40 mg nightly") is only the dose: what follows it is still said."""
    kept, back, last = [], [], 0
    for found in _TAKEN_BACK.finditer(message):
        if found.group("whole") is not None:  # "from … to": all of it is the old value
            start, end = found.start("whole"), found.end("whole")
        else:
            value = found.group("value")
            dose = _DOSE.match(value)
            start = found.start("value")
            end = start + (dose.end() if dose else len(value))
        kept.append(message[last : found.start()])
        back.append(message[start:end])
        last = end
    kept.append(message[last:])
    return " ".join(kept), " ".join(back).lower()


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


def _drug_field(spec: ToolSpec) -> str | None:
    """The write's field naming a drug (a prescription's), or None."""
    return next((n for n, k in field_grounding(spec.args).items() if k is Grounding.DRUG), None)


def amended(
    spec: ToolSpec,
    earlier: Mapping[str, Any],
    message: str,
    drugs_named: Callable[[str], list[str]],
) -> dict[str, Any] | None:
    """The earlier write's arguments with the message's changes, or None when the message
    speaks of another drug than the write's.

    Changed: the added words after the dictated text (or, when the correction says the
    note should read its quoted words, the text replaced by them), a closed field's value
    the message states, a stated duration or dose. ``drugs_named``: the generic names of
    the drugs a text names (brands included), so "her Zestril" is lisinopril and "Lipitor"
    is the saved atorvastatin. The drug changes only when the message puts one in place of
    the write's ("rosuvastatin, not atorvastatin"); the earlier frequency, duration, route
    and remark belonged to the earlier drug and are dropped unless said again. With no
    change ("save it again"), the same arguments: a new card, for a Reject given by
    mistake.
    """
    args = dict(earlier["args"])
    more = addition(message)
    rest = message.replace(more, " ") if more else message  # closed fields: not the addition
    rest, taken_back = _taken_back(rest)
    grounding = field_grounding(spec.args)
    drug_field = _drug_field(spec)
    if drug_field is not None and isinstance(args.get(drug_field), str):
        current = set(drugs_named(args[drug_field]) or [args[drug_field].lower()])
        others = [d for d in dict.fromkeys(drugs_named(rest)) if d not in current]
        takes_back_drug = bool(current & set(drugs_named(taken_back)))
        if others and (len(others) > 1 or not takes_back_drug):
            return None  # "change the dose of her lisinopril": not this write's drug
        if takes_back_drug and not others:
            return None  # "rosuvastatn 10 mg, not atorvastatin": its new drug is unknown
        if others:  # the new drug, with only what is said of it
            args = {
                drug_field: others[0],
                **{n: v for n, v in args.items() if grounding.get(n) is Grounding.PATIENT_ID},
            }
    for name, kind in grounding.items():
        if kind is Grounding.DICTATED and more:
            replace = bool(_READS_AS.search(message))
            args[name] = more if replace else _joined(str(args.get(name) or ""), more)
        elif kind is Grounding.STATED and (stated := vocabulary_of(spec.args, name).stated(rest)):
            args[name] = stated[0]
        elif kind is Grounding.VERBATIM and name == "duration" and (said := durations(rest)):
            args[name] = said[0]
        elif name == "dosage" and (dose := doses(rest)):
            args[name] = dose[0]
    return args


def _ask_for(spec: ToolSpec, before: Mapping[str, Any], after: Mapping[str, Any]) -> str | None:
    """The question for a card that lacks a required value (a drug put in place of another
    comes without its regimen), or None when it lacks none."""
    required = (n for n, f in spec.args.model_fields.items() if f.is_required())
    missing = [n.replace("_", " ") for n in required if after.get(n) in (None, "")]
    if not missing:
        return None
    drug = _drug_field(spec) or ""
    new, old = after.get(drug, ""), before.get(drug, "")
    return (
        f"To put {new} in place of {old}, I need its {' and '.join(missing)} too. Please say "
        f'the whole order, e.g. "Correction: {new} <dose> <how often>, not {old}".'
    )


def reproposal(
    message: str,
    earlier: Iterable[Mapping[str, Any] | None],
    *,
    turn: int,
    registry: ToolRegistry,
    active_patient: str | None,
    patient_ids: Sequence[str],
    drugs_named: Callable[[str], list[str]],
) -> Reproposal | None:
    """A new card for a recent write (``earlier``: the saved and the declined write kept in
    the state) with this message's changes, or None.

    A declined write is proposed again when the message asks for it again, or corrects it
    and changes something. A saved write is proposed again, replacing its entry, only when
    the message corrects it, changes something, is not itself a new order or dictation
    (unless it opens by saying it corrects), and speaks of the same patient (the one
    selected, and any id the message names). When both fit, the later write is meant. A
    card that lacks a required value (a new drug without its frequency) carries ``ask``,
    the question to put instead of showing it.
    """
    new_write = ordered_write(message, registry, drug_named=bool(drugs_named(message)))
    explicit = bool(_EXPLICIT.match(message) or _DOSE_CHANGE.search(message))
    correction = corrects(message) and (not new_write or explicit)
    fitting: list[tuple[int, Reproposal, Mapping[str, Any]]] = []
    for write in earlier:
        if not write or write.get("tool") not in registry or not still_meant(write, turn):
            continue
        spec = registry[write["tool"]]
        args = amended(spec, write, message, drugs_named)
        patient = str(write["args"].get("patient_id") or "").lower()
        named = {p.lower() for p in (active_patient, *patient_ids) if p}
        if args is None or named != ({patient} if patient else set()):
            continue  # another patient, or none selected: not this write's
        changed = args != write["args"]
        if "reference" in write and correction and changed:
            why = "a correction of the saved write"
            card = Reproposal(tool=spec.name, args=args, why=why)
            card["replacing"] = Replacing(
                replaces=write["reference"], replaced=summarize(spec, write["args"])
            )
            fitting.append((write["turn"], card, write))
        elif "reference" not in write and (asks_again(message) or (correction and changed)):
            card = Reproposal(tool=spec.name, args=args, why="the declined write, asked for again")
            if "replacing" in write:  # a declined correction still replaces its entry
                card["replacing"] = write["replacing"]
            fitting.append((write["turn"], card, write))
    if not fitting:
        return None
    _, card, source = max(fitting, key=lambda fit: fit[0])
    if question := _ask_for(registry[card["tool"]], source["args"], card["args"]):
        card["ask"] = question
    return card

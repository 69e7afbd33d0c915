"""What the clinician dictated for the record, found by code in the clinician's own words.

A record write holds what the clinician said, not what a small model made of it: a note
split at the wrong word (its first words taken as the note's type, the rest as its
text) would be saved beginning mid-sentence. So the fields a write takes from
the clinician's words are read here, from the message, and the model's proposal is kept
only where it agrees:

- a closed field (frequency, route, severity, note type) is the value the clinician's
  words state, else its vocabulary's default;
- a dictated text (a note) is the words after "note:" or after the command, as typed;
- a verbatim field (a reaction, a duration) is a run of the clinician's words, as typed.

Pure functions of the messages; nothing here calls a model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from docgemma.tools.args import vocabulary_of
from docgemma.tools.base import ToolSpec
from docgemma.tools.grounding import Grounding, field_grounding
from docgemma.tools.vocabulary import NOTE_TYPE
from docgemma.topic_words import STEM_CHARS

_I = re.IGNORECASE
_TOKEN = re.compile(r"[a-z0-9]+", _I)
_WRITE_VERB = (
    r"(?:save|write|add|record|document|create|make|put|enter|log|file|draft|jot(?:\s+down)?"
    r"|chart|type\s+up)"
)
_NOTE_WORD = r"(?:notes?|documentation|entry|addendum)"
_COMMAND_WORD = re.compile(rf"\b(?:{_WRITE_VERB}|{_NOTE_WORD})\b", _I)
_QUOTED = re.compile(r"[\"“”«»]([^\"“”«»]+)[\"“”«»]")
_SEPARATOR = re.compile(r"(?<!\d):|:(?!\d)|\s[-–—]\s")
"""Where a dictation starts after its command: a colon (not a time's) or a spaced dash."""
_CONNECTOR = re.compile(
    rf"\b(?:{_WRITE_VERB}|{_NOTE_WORD})\b[^.:;\n]{{0,60}}?\s"
    r"(?:saying|stating|that\s+says|that\s+reads|which\s+says|reading|to\s+say|that)\s+(?=\S)",
    _I,
)
"""A command followed by "saying …" / "that …": "Document that the wound is healing"."""
_PATIENT_REF = (
    r"(?:(?:patient|pt\.?)\s+)?(?:[a-z]{2,20}-\d{3,6}|\d{3,10}"
    r"|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})"
    r"|(?:him|her|them|this\s+patient|the\s+patient)"
    r"|(?:(?:his|her|their|the|this)\s+(?:patient'?s\s+)?(?:chart|record|file|notes))"
    r"|(?:the\s+)?(?:chart|record)\s+of\s+(?:patient\s+)?(?:[a-z]{2,20}-\d{3,6}|\d{3,10})"
)
_COMMAND = re.compile(
    rf"^\s*(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?{_WRITE_VERB}\s+"
    rf"(?:(?:a|an|the|this|my)\s+)?(?:[a-z&-]+\s+){{0,2}}?{_NOTE_WORD}"
    rf"(?:\s+(?:for|to|on|in|into)\s+(?:{_PATIENT_REF}))?(?:\s+(?:saying|that))?\s+(?=\S)",
    _I,
)
"""A command with nothing after it but the dictation: "Save a progress note for abc-123 …"."""
_NOTE_KIND = "|".join(
    sorted(
        {w for v, said in NOTE_TYPE.said_as.items() for p in (v, *said) for w in p.split()}
        - {"note", "summary", "and"}
        | {"clinical", "brief", "short", "quick", "new", "ward", "round", "soap", "nursing"},
        key=len,
        reverse=True,
    )
)
"""Words that may qualify the note a command asks for: its type as the record's vocabulary
states it ("a discharge note", "an op note"), or how brief it is."""
_NOTE_ORDER = re.compile(
    rf"^\s*(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?{_WRITE_VERB}\s+"
    rf"(?:(?:a|an|the|this|my)\s+)?(?:(?:{_NOTE_KIND})\s+){{0,3}}(?:notes?|addendum)"
    rf"(?:\s+(?:for|to|on|in|into)\s+(?:{_PATIENT_REF}))?\s*(?:[:–—-]|\s(?:saying|that)\b)",
    _I,
)
"""A message that opens by asking for a note of the record and gives its words after a colon,
a dash or "saying": "Save a note: …", "Could you add a brief progress note for abc-123 – …".
A note to someone else ("a note to the GP", "a sick note") is not one."""
_ADDRESS_TAIL = re.compile(rf"[\s,;-]*\b(?:for|to|in|on|into)\s+(?:{_PATIENT_REF})\s*[.!]?\s*$", _I)
"""A closing "… for patient abc-123" names where the note goes, not what it says."""
DURATION = re.compile(
    r"\b(?:for|x|×)\s*(?:(?:a|one|two|three|four|five|six|seven|eight|nine|ten|fourteen|\d{1,3})"
    r"(?:\s*(?:more|further))?\s*(?:-\s*)?(?:days?|weeks?|months?|doses?))\b",
    _I,
)
"""A prescription's duration as clinicians write it: "for 7 days", "x 5 days", "for a week"."""
BARE_DURATION = re.compile(
    r"\b(?:od|bd|bid|tds|tid|qds|qid|daily|nocte|mane|prn|po|oral|iv|im|sc)\s+"
    r"(\d{1,3}\s*(?:days?|weeks?|months?))\b(?!\s+(?:ago|old|later|after|since|post|then))",
    _I,
)
"""A duration written straight after a frequency or a route ("400 mg tds po 7 days"). It
confirms a duration proposed from those words; it never fills an empty one, since the same
words tell a history ("started iv 3 days post op")."""


def dictation(message: str) -> str | None:
    """The text the message dictates for a note, as typed; None when it dictates none.

    Quoted words first; then what follows the first colon or spaced dash after a note
    command ("Save a note for abc-123: …"); then what follows "saying" / "that" after one
    ("Document that …"); then what follows the command itself ("Add a progress note …").
    """
    quoted = [q.strip() for q in _QUOTED.findall(message) if len(q.split()) >= 2]
    if quoted:
        return max(quoted, key=len)
    candidates = []
    separator = _SEPARATOR.search(message)
    if separator and _COMMAND_WORD.search(message[: separator.start()]):
        candidates.append(message[separator.end() :])
    if not candidates and (connector := _CONNECTOR.search(message)):
        candidates.append(message[connector.end() :])
    if not candidates and (command := _COMMAND.match(message)):
        candidates.append(message[command.end() :])
    for text in candidates:
        text = _ADDRESS_TAIL.sub("", text).strip()
        if _TOKEN.search(text):
            return text
    return None


def orders_a_note(message: str) -> bool:
    """The message opens by asking for a note and dictates what it says ("Save a note for
    abc-123: tired for two weeks, TSH requested"): a write, whatever the note names. The
    lab it mentions is what the note records, not a question about the chart, and a drug
    it starts is the note's plan, not a prescription. What follows the colon as a question
    ("Make a note: what was her last TSH?") is not dictated."""
    said = dictation(message) if _NOTE_ORDER.match(message) else None
    return said is not None and not said.rstrip().endswith("?")


def _tokens(text: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(text))


def _stem(word: str) -> str:
    return word.lower()[:STEM_CHARS]


MAX_LEFT_OUT = 2
"""Words of the clinician's a shortened value may have left out ("take with food" for
"take it with food"), for the clinician's own run to replace it."""


def clinician_run(value: str, messages: Sequence[str]) -> str | None:
    """The run of a message's words that ``value`` is, as the clinician typed it.

    Words are compared without case or punctuation; failing that, by their beginnings
    ("vomiting" for "it makes him vomit" is the clinician's "vomit"); failing that, the
    shortest run holding the value's words in order with at most ``MAX_LEFT_OUT`` others
    between them. None when no message has such a run.
    """
    wanted = [w.lower() for w in _TOKEN.findall(value)]
    if not wanted:
        return None
    for same, gaps in ((str.lower, 0), (_stem, 0), (_stem, MAX_LEFT_OUT)):
        target = [same(w) for w in wanted]
        for message in messages:
            found = _tokens(message)
            said = [same(m.group(0)) for m in found]
            for start in range(len(said)):
                end = _run_end(said, start, target, gaps)
                if end is not None:
                    return message[found[start].start() : found[end].end()]
    return None


def _run_end(said: list[str], start: int, target: list[str], gaps: int) -> int | None:
    """The last word of the run from ``start`` that holds ``target`` in order with at most
    ``gaps`` other words between its words, or None."""
    if said[start] != target[0]:
        return None
    i, skipped = start, 0
    for word in target[1:]:
        i += 1
        while i < len(said) and said[i] != word and skipped < gaps:
            i, skipped = i + 1, skipped + 1
        if i >= len(said) or said[i] != word:
            return None
    return i


def in_clinician_runs(value: str, messages: Sequence[str], min_run: int = 2) -> bool:
    """Every word of ``value`` belongs to a run of ``min_run`` or more words the clinician
    said in that order (a note put together from two of the clinician's messages)."""
    wanted = [w.lower() for w in _TOKEN.findall(value)]
    if not wanted:
        return False
    said = [[w.lower() for w in _TOKEN.findall(m)] for m in messages]
    i = 0
    while i < len(wanted):
        longest = max((_run_at(wanted, i, words) for words in said), default=0)
        if longest < min(min_run, len(wanted) - i):
            return False
        i += longest
    return True


def _run_at(wanted: list[str], start: int, said: list[str]) -> int:
    best = 0
    for j in range(len(said)):
        n = 0
        while start + n < len(wanted) and j + n < len(said) and said[j + n] == wanted[start + n]:
            n += 1
        best = max(best, n)
    return best


def durations(message: str, *, bare: bool = True) -> list[str]:
    """The durations ``message`` states; ``bare``: with those written without "for" or "x"."""
    found = [m.group(0) for m in DURATION.finditer(message)]
    return found + ([m.group(1) for m in BARE_DURATION.finditer(message)] if bare else [])


@dataclass(frozen=True)
class Restatement:
    """A write's arguments set from the clinician's words."""

    changed: dict[str, Any] = field(default_factory=dict)
    """Fields given the value the clinician's words hold (``None``: the field is removed)."""
    missing: list[str] = field(default_factory=list)
    """Required fields the clinician's words do not give: ask for them."""


def _subject_messages(spec: ToolSpec, args: dict[str, Any], messages: Sequence[str]) -> list[str]:
    """The message that asks for this write: this one, and the latest earlier one that names
    what it writes (a drug, a substance) or dictates a note, when this one is a reply
    ("abc-123" after "which patient?")."""
    if not messages:
        return []
    current, earlier = messages[0], messages[1:]
    key = next((f for f in spec.summary_fields if f in args and f not in _restated(spec)), None)
    subject = str(args.get(key) or "") if key else ""
    for message in earlier:
        if (subject and clinician_run(subject, [message])) or (not subject and dictation(message)):
            return [current, message]
    return [current]


def _restated(spec: ToolSpec) -> set[str]:
    kinds = {Grounding.STATED, Grounding.DICTATED}
    return {n for n, k in field_grounding(spec.args).items() if k in kinds}


def restate(spec: ToolSpec, args: dict[str, Any], messages: Sequence[str]) -> Restatement:
    """The write's clinician-given fields, from ``messages`` (this turn's first)."""
    changed: dict[str, Any] = {}
    missing: list[str] = []
    asked = _subject_messages(spec, args, messages)
    kinds = field_grounding(spec.args)
    commands = asked  # a note's type is read from its command, not from what it dictates
    if Grounding.DICTATED in kinds.values():
        commands = [m.replace(d, " ") if (d := dictation(m)) else m for m in asked]
    for name, kind in kinds.items():
        value = args.get(name)
        required = spec.args.model_fields[name].is_required()
        if kind is Grounding.STATED:
            vocabulary = vocabulary_of(spec.args, name)
            stated = next((v for m in commands if (v := vocabulary.stated(m))), [None])[0]
            meant = stated or vocabulary.default
            if meant is None and required:
                missing.append(name)
            elif meant != vocabulary.normalize(value):
                changed[name] = meant
        elif kind is Grounding.DICTATED:
            meant = _dictated(value, asked, messages)
            if meant is None:
                missing.append(name)
            elif meant != value:
                changed[name] = meant
        elif kind is Grounding.VERBATIM:
            meant = clinician_run(value, asked) if isinstance(value, str) else None
            if name == "duration":  # a length of time the clinician stated, nothing else
                stated = [d for m in asked for d in durations(m)]
                if meant not in stated + [d.split(None, 1)[-1] for d in stated]:
                    given = [d for m in asked for d in durations(m, bare=False)]
                    meant = given[0] if given else None
            if (
                meant is not None
                and not required
                and (_repeats_the_order(spec, args, name, meant) or _says_nothing(meant))
            ):
                meant = None
            if meant is None and value is not None and required:
                missing.append(name)
            elif meant != value:
                changed[name] = meant
    return Restatement(changed, missing)


CONNECTIVES = frozenset(
    {"instead", "too", "also", "again", "please", "pls", "thanks", "thank", "you", "ok", "okay"}
    | {"now", "then", "as", "well"}
)
"""Words that link a message to the one before or soften it, and say nothing of a drug."""


def _says_nothing(remark: str) -> bool:
    """An optional remark made only of connectives ("instead", "as well, thanks"): the model
    took the end of the order for a note; the record would hold a word, not a remark."""
    return all(w in CONNECTIVES for w in re.findall(r"[a-z]+", remark.lower()))


ORDER_VALUES_REPEATED = 2
"""How many of a write's required values an optional remark may hold before it counts as
the order itself."""


def _repeats_the_order(spec: ToolSpec, args: dict[str, Any], name: str, text: str) -> bool:
    """An optional remark that holds the write's own required values ("Please prescribe
    levothyroxine 100 mcg once daily for patient …" as a prescription's notes) repeats the
    order; the card and the record would show it twice."""
    held = [
        field
        for field, info in spec.args.model_fields.items()
        if field != name
        and info.is_required()
        and isinstance(value := args.get(field), str)
        and value.strip()
        and re.search(rf"(?<!\w){re.escape(value.strip())}(?!\w)", text, re.IGNORECASE)
    ]
    return len(held) >= ORDER_VALUES_REPEATED


def _dictated(value: Any, asked: Sequence[str], messages: Sequence[str]) -> str | None:
    """The note's text: this message's dictation; else the proposal, when it is made of the
    clinician's own runs of words (a note rewritten with an addition); else the dictation of
    the message that asked for the note; else None (ask)."""
    if said := dictation(asked[0]):
        return said
    if isinstance(value, str) and in_clinician_runs(value, messages):
        return value
    return next((said for m in asked[1:] if (said := dictation(m))), None)

"""Is each extracted argument value something the clinician actually gave?

A small model fills an argument it cannot find with a placeholder ("patient_name") or
a plausible guess; run as is, the tool searches for it and the answer is about nothing
the clinician said. Here every value is compared with the turn's evidence — the
message, the conversation, the active patient and the results this turn already
returned — in the way its field declares (``docgemma.tools.grounding``). Pure code,
no model: what fails asks the clinician (required fields) or is dropped (optional ones).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from docgemma.agent.conditions import condition_names
from docgemma.agent.context import image_text, known_patient_ids
from docgemma.agent.dictation import clinician_run
from docgemma.agent.entities import drug_dictionary
from docgemma.agent.person_names import is_person_name
from docgemma.agent.state import AgentState
from docgemma.ehr.chart import MEDICATIONS_HEADING
from docgemma.tools.grounding import Grounding, field_grounding
from docgemma.topic_words import FILLER_WORDS, STEM_CHARS, topic_stems

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_ABBREVIATION_DOT = re.compile(r"(?<=\b[a-z])\.(?=[a-z]\b)")
"""The dots of "b.i.d." and "q.d.", removed so the abbreviation reads as one word."""
_MIN_ID_CHARS = 3
_MEDICATION_LINE = re.compile(rf"^\s*{MEDICATIONS_HEADING}: (.+)$", re.MULTILINE)
EQUIVALENT_PHRASES: tuple[tuple[str, str], ...] = (
    ("twice a day", "twice daily"),
    ("bid", "twice daily"),
    ("three times a day", "three times daily"),
    ("tid", "three times daily"),
    ("four times a day", "four times daily"),
    ("qid", "four times daily"),
    ("once a day", "once daily"),
    ("qd", "once daily"),
    ("every day", "once daily"),
    ("at night", "at bedtime"),
    ("qhs", "at bedtime"),
)
"""Dosing abbreviations and their spelled-out forms, compared as the same words."""


def words(text: str) -> list[str]:
    """Lower-case alphanumeric words; case, spacing and punctuation do not matter."""
    return [w for w in _NON_ALNUM.split(_ABBREVIATION_DOT.sub("", text.lower())) if w]


def canonical(text: str) -> str:
    """Words joined by single spaces, with dosing abbreviations spelled out."""
    joined = f" {' '.join(words(text))} "
    for short, long in EQUIVALENT_PHRASES:
        joined = joined.replace(f" {short} ", f" {long} ")
    return joined.strip()


@dataclass(frozen=True)
class Evidence:
    """What the clinician gave this turn, in the forms the checks compare against."""

    text: str
    """Canonical words of the message, the conversation, the active patient, the image's
    findings and the results."""
    clinician_text: str
    """The clinician's own words only (message and earlier messages): where IDs are typed."""
    query: str = ""
    """This turn's message as typed."""
    drugs: frozenset[str] = field(default_factory=frozenset)
    patient_ids: frozenset[str] = field(default_factory=frozenset)
    record_drugs: tuple[str, ...] = ()
    """The drugs of the active medication lists of the charts read this turn or loaded."""
    messages: tuple[str, ...] = ()
    """The clinician's messages as typed, this turn's first, then the earlier ones, latest
    first: where dictated words and names are looked for."""

    @classmethod
    def of(cls, state: AgentState) -> Evidence:
        history = state.get("conversation_history") or []
        clinician = [state.get("user_query", "")]
        clinician += [t["content"] for t in reversed(history) if t["role"] == "user"]
        others = [t["content"] for t in history if t["role"] != "user"]
        others.append(state.get("patient_summary") or "")
        others.append(image_text(state))
        others += [
            r["formatted_result"] for r in state.get("tool_results", []) if not r["error_type"]
        ]
        everything = " \n ".join([*clinician, *others])
        drugs = set(drug_dictionary().find(everything))
        drugs |= set((state.get("extracted_entities") or {}).get("drug_mentions", []))
        return cls(
            text=canonical(everything),
            clinician_text=" ".join(clinician).lower(),
            query=state.get("user_query", ""),
            drugs=frozenset(d.lower() for d in drugs),
            patient_ids=frozenset(p.lower() for p in known_patient_ids(state)),
            messages=tuple(clinician),
            record_drugs=tuple(
                dict.fromkeys(
                    d
                    for line in _MEDICATION_LINE.findall(" \n ".join(others))
                    for d in drug_dictionary().find(line)
                )
            ),
        )


def _phrase(value: str, evidence: Evidence) -> bool:
    said = canonical(value)
    value_words = said.split()
    if not value_words or set(value_words) <= FILLER_WORDS:
        return False
    if f" {said} " in f" {evidence.text} ":
        return True
    compact = said.replace(" ", "")
    if compact in evidence.text.replace(" ", "") and len(compact) >= _MIN_ID_CHARS:
        return True
    drugs = _dictionary_drugs(value)
    return bool(drugs) and drugs <= evidence.drugs


def _dictionary_drugs(value: str) -> frozenset[str]:
    """The drugs a value names, by the dictionary's generic names: the message's "penicillin"
    and a model's "penicillins" (the dictionary's name for it) are one drug."""
    return frozenset(g.lower() for g in drug_dictionary().find(value))


def _loose(value: str, evidence: Evidence) -> bool:
    stems = {w[:STEM_CHARS] for w in evidence.text.split()}
    return any(s in stems for s in topic_stems(words(value)))


def _said(value: str, evidence: Evidence) -> bool:
    content = topic_stems(words(value))
    typed = {w[:STEM_CHARS] for w in words(evidence.clinician_text)}
    return bool(content) and all(s in typed for s in content)


def _drug(value: str, evidence: Evidence) -> bool:
    if generics := _dictionary_drugs(value):
        return generics <= evidence.drugs
    if condition_names().find(value):  # "atrial fibrillation" was said, but not as a drug
        return False
    return _phrase(value, evidence)


def typed_id(pid: str, text: str) -> bool:
    """The clinician typed this ID: a whole token with a digit, not a piece of a dose or word."""
    if len(pid) < _MIN_ID_CHARS or not any(c.isdigit() for c in pid):
        return False
    return re.search(rf"(?<![\w-]){re.escape(pid)}(?![\w-])", text) is not None


def _patient_id(value: str, evidence: Evidence) -> bool:
    pid = value.strip().lower()
    return pid in evidence.patient_ids or typed_id(pid, evidence.clinician_text)


def _verbatim(value: str, evidence: Evidence) -> bool:
    return clinician_run(value, evidence.messages) == value


def _person_name(value: str, evidence: Evidence) -> bool:
    return is_person_name(value, evidence.messages)


_CHECKS = {
    Grounding.DRUG: _drug,
    Grounding.PATIENT_ID: _patient_id,
    Grounding.PHRASE: _phrase,
    Grounding.LOOSE: _loose,
    Grounding.SAID: _said,
    Grounding.VERBATIM: _verbatim,
    Grounding.PERSON_NAME: _person_name,
}
_SET_BY_CODE = frozenset({Grounding.FREE, Grounding.STATED, Grounding.DICTATED})
"""Not checked here: free text, and the fields ``dictation.restate`` has already set from
the clinician's words."""


def grounded(kind: Grounding, value: Any, evidence: Evidence) -> bool:
    """One value (or every item of a list) passes its field's check; free text always does."""
    if kind in _SET_BY_CODE or value is None:
        return True
    items = value if isinstance(value, list) else [value]
    return all(isinstance(v, str) and _CHECKS[kind](v, evidence) for v in items)


@dataclass(frozen=True)
class GroundingVerdict:
    args: dict[str, Any]
    """The arguments with ungrounded optional values and list items removed."""
    missing: list[str]
    """Required fields whose value the clinician never gave: ask for them."""
    dropped: list[str]
    pruned: dict[str, list[str]] = field(default_factory=dict)
    """List fields that keep their grounded items, with the items left out."""


def _prune(
    schema: type[BaseModel], args: dict[str, Any], name: str, kind: Grounding, evidence: Evidence
) -> list[str] | None:
    """The grounded items of a list value, when they alone still make a valid argument."""
    value = args[name]
    if not isinstance(value, list):
        return None
    items = [v for v in value if grounded(kind, v, evidence)]
    try:
        schema.model_validate({**args, name: items})
    except ValidationError:
        return None
    return items


def ground_args(
    schema: type[BaseModel], args: dict[str, Any], evidence: Evidence
) -> GroundingVerdict:
    kept, missing, dropped, pruned = dict(args), [], [], {}
    for name, kind in field_grounding(schema).items():
        if name not in args or grounded(kind, args[name], evidence):
            continue
        items = _prune(schema, args, name, kind, evidence)
        if items is not None:  # "dofetilide, azithromycin" kept, "atrial fibrillation" not
            kept[name] = items
            pruned[name] = [v for v in args[name] if v not in items]
        elif schema.model_fields[name].is_required():
            missing.append(name)
        else:
            dropped.append(name)
            del kept[name]
    return GroundingVerdict(kept, missing, dropped, pruned)

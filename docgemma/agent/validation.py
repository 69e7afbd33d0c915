"""Validate a proposed tool call before it runs.

Catches structurally valid but meaningless calls from a small model: a query too
short to search, fewer than two drugs for an interaction check, an argument value
the clinician never gave (a placeholder, a guessed patient ID or drug), an image
analysis with no image.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from docgemma.agent.conditions import condition_names
from docgemma.agent.dictation import clinician_run, restate
from docgemma.agent.drug_names import is_known, is_sentence, nearest_known, typed_as
from docgemma.agent.entities import drug_dictionary
from docgemma.agent.grounding import Evidence, ground_args
from docgemma.agent.person_names import introduced_names, is_person_name, without_title
from docgemma.agent.references import asks_if_patient_may_take, points_to_record_medications
from docgemma.agent.rules import unknown_drug_question
from docgemma.tools.base import ToolSpec
from docgemma.tools.grounding import Grounding, field_grounding
from docgemma.tools.outcomes import ToolErrorType

_QUERY_FIELDS = ("query", "condition", "name")
_MIN_QUERY_CHARS = 3


@dataclass(frozen=True)
class Validation:
    ok: bool
    error_type: ToolErrorType | None = None
    missing_fields: list[str] = field(default_factory=list)
    reason: str = ""
    dropped: list[str] = field(default_factory=list)
    """Optional arguments removed because the clinician never gave their value."""
    narrowed: dict[str, str] = field(default_factory=dict)
    """Arguments replaced by the value the question means (see ``narrowed_args``)."""
    pruned: dict[str, list[str]] = field(default_factory=dict)
    """List arguments' items left out because the clinician never gave them as such."""
    tidied: dict[str, str] = field(default_factory=dict)
    """Text arguments the schema's own rules rewrote (a dose that repeated the frequency)."""
    restated: dict[str, Any] = field(default_factory=dict)
    """Arguments set to what the clinician's words hold (``None``: removed): a note's
    dictated text, a stated frequency, a name without its title (``dictation.restate``)."""
    question: str = ""
    """The question for the clinician, when code wrote it (names no dictionary knows)."""
    unknown_drugs: dict[str, list[str]] = field(default_factory=dict)
    """Drug names as typed that no dictionary knows, each with the nearest known names."""


def meant_drug(spec: ToolSpec, value: Any, query: str) -> str | None:
    """The one drug a single-drug argument means when the model put several in it, else None.

    Asked for "the FDA warnings for dofetilide, its interaction with azithromycin, and trials
    in atrial fibrillation", a model may give the label search the whole list, which finds
    nothing. The drug meant is the first of them the question names after the words asking
    for this tool ("interactions between lisinopril and spironolactone, and the FDA warnings
    for spironolactone": spironolactone, not the list's first), else the list's first.
    """
    if not isinstance(value, str):
        return None
    dictionary = drug_dictionary()
    named = dictionary.find(value)
    if len(named) < 2:
        return None
    after = [d for d in dictionary.find(_asked_part(spec, query)) if d in named]
    return after[0] if after else named[0]


def meant_condition(spec: ToolSpec, value: Any, query: str) -> str | None:
    """The condition a topic argument means when the model gave it a drug from elsewhere.

    Asked for "the FDA warnings for dofetilide, … and trials in atrial fibrillation", a
    model may search trials for dofetilide. When the value names only drugs, none of them in
    the part of the question asking for this tool, and that part names a condition, the
    condition is meant ("trials of dofetilide in atrial fibrillation" keeps dofetilide).
    """
    if not isinstance(value, str):
        return None
    dictionary, conditions = drug_dictionary(), condition_names()
    drugs = dictionary.find(value)
    if not drugs or conditions.find(value):
        return None
    part = _asked_part(spec, query)
    if set(drugs) & set(dictionary.find(part)):
        return None
    named = conditions.find(part)
    return max(named, key=lambda n: len(n.split())) if named else None


def _asked_part(spec: ToolSpec, query: str) -> str:
    """The question from the words asking for this tool on (all of it when none do)."""
    positions = (pattern.position(query) for pattern in spec.requested_by)
    return query[min((p for p in positions if p is not None), default=0) :]


_MEANT = {Grounding.DRUG: meant_drug, Grounding.LOOSE: meant_condition}


def narrowed_args(spec: ToolSpec, args: dict[str, Any], query: str) -> dict[str, str]:
    """Fields whose value the question shows to be wider or other than meant, with the value
    meant: one drug of several, or the condition instead of a drug."""
    found = {}
    for name, kind in field_grounding(spec.args).items():
        meant = _MEANT.get(kind)
        if meant is not None and (value := meant(spec, args.get(name), query)):
            found[name] = value
    return found


def restated_args(
    spec: ToolSpec, args: dict[str, Any], evidence: Evidence
) -> tuple[dict[str, Any], list[str]]:
    """The arguments the clinician's words give, and the required ones they do not.

    A person's name loses its title ("patient Ana Duarte"), and one the clinician never
    typed gives way to the name the message introduces; a write's closed, dictated and
    verbatim fields are read from the clinician's words (``dictation.restate``).
    """
    kinds = field_grounding(spec.args)
    changed: dict[str, Any] = {}
    for name, kind in kinds.items():
        value = args.get(name)
        if kind is Grounding.PERSON_NAME:
            meant = _person_meant(value, evidence)
            if meant and meant != value:
                changed[name] = meant
        if kind is Grounding.DRUG:
            listed = message_drugs(spec, name, value, evidence)
            value = listed or value
            more = record_medications(spec, name, value, evidence)
            if listed or more:
                changed[name] = more or listed
    said = {Grounding.STATED, Grounding.DICTATED, Grounding.VERBATIM}
    if said & set(kinds.values()):
        restatement = restate(spec, args, evidence.messages or (evidence.query,))
        return changed | restatement.changed, restatement.missing
    return changed, []


def _person_meant(value: Any, evidence: Evidence) -> str | None:
    """The name to search for: the model's, without its title, when the clinician typed it
    as a name; else the one name this message introduces ("find patient …"), if only one."""
    bare = without_title(value) if isinstance(value, str) else ""
    messages = evidence.messages or (evidence.query,)
    if bare and is_person_name(bare, messages):
        return bare
    introduced = introduced_names(evidence.query)
    return introduced[0] if len(introduced) == 1 else bare or None


def message_drugs(spec: ToolSpec, name: str, drugs: Any, evidence: Evidence) -> list[Any] | None:
    """A drug list that misses what the message asks to check, made the message's drugs.

    When the message names two or more drugs and the model's list holds fewer than two of
    them (it filled the list with something else: a tool's name, a class, one drug twice),
    the check is of the drugs the clinician named; the model's other items follow, for
    grounding to keep (a food the message names) or leave out.
    """
    if not isinstance(drugs, list):
        return None
    dictionary = drug_dictionary()
    named = list(dict.fromkeys(dictionary.find(evidence.query)))
    if len(named) < 2:
        return None
    wanted = {d.lower() for d in named}
    listed = {g.lower() for d in drugs if isinstance(d, str) for g in dictionary.find(d)}
    if len(listed & wanted) >= 2:
        return None
    rest = [d for d in drugs if not (isinstance(d, str) and dictionary.find(d))]
    return _at_most(spec, name, [*named, *rest])


def record_medications(
    spec: ToolSpec, name: str, drugs: Any, evidence: Evidence
) -> list[Any] | None:
    """A drug list completed with the patient's active medications, when a chart gives them
    and the question points to them ("pull their med list and check for interactions with
    …"), asks whether the patient may take a drug ("can she take ibuprofen?"), or the list
    already holds one of them that the message does not name: checked against part of a
    patient's medications, a new drug's interaction with the rest goes unseen."""
    if not isinstance(drugs, list) or not evidence.record_drugs:
        return None
    on_record = {d.lower() for d in evidence.record_drugs}
    message = evidence.query.lower()
    drawn = any(str(d).lower() in on_record and str(d).lower() not in message for d in drugs)
    asked = points_to_record_medications(evidence.query) or asks_if_patient_may_take(evidence.query)
    if not (drawn or asked):
        return None
    dictionary = drug_dictionary()
    have = {str(d).lower() for d in drugs}
    have |= {g.lower() for d in drugs if isinstance(d, str) for g in dictionary.find(d)}
    extra = [d for d in evidence.record_drugs if d.lower() not in have]
    whole = _at_most(spec, name, [*drugs, *extra])
    return whole if extra and len(whole) > len(drugs) else None


def _at_most(spec: ToolSpec, name: str, items: list[Any]) -> list[Any]:
    """``items`` cut to the most the list field ``name`` takes."""
    limit = spec.args.model_json_schema()["properties"][name].get("maxItems", len(items))
    return items[:limit]


def unknown_drugs(spec: ToolSpec, args: dict[str, Any], evidence: Evidence) -> dict[str, list[str]]:
    """Drug names the clinician typed that no dictionary knows, with the nearest known ones.

    A known drug the model put in place of a word the clinician misspelt ("simvastatin" for
    "simvastatn") counts as that word, so the clinician confirms the correction too.
    """
    found: dict[str, list[str]] = {}
    typed = [w for m in evidence.messages[:1] for w in re.findall(r"[A-Za-z][\w-]{3,}", m)]
    for name, kind in field_grounding(spec.args).items():
        if kind is not Grounding.DRUG:
            continue
        value = args.get(name)
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str) or not item.strip() or condition_names().find(item):
                continue
            if not is_known(item):  # a misspelling of a known drug; not a food or a new name,
                near = nearest_known(item)  # which the check reports as not in its references
                if near and clinician_run(item, evidence.messages):
                    found[item.strip()] = near
            elif (
                not _given(item, evidence)
                and (word := typed_as(item, typed))
                and not is_known(word)
            ):
                found[word] = list(dict.fromkeys([item, *nearest_known(word)]))[:3]
    return found


def sentence_drugs(spec: ToolSpec, args: dict[str, Any]) -> list[str]:
    """The drug fields whose value is a sentence, not a name: the drug must be asked for."""
    bad = []
    for name, kind in field_grounding(spec.args).items():
        value = args.get(name)
        items = value if isinstance(value, list) else [value]
        if kind is Grounding.DRUG and any(isinstance(i, str) and is_sentence(i) for i in items):
            bad.append(name)
    return bad


def referred_drug(evidence: Evidence) -> str | None:
    """The drug a message that only refers to one ("Is it safe in pregnancy?") means: the
    one drug of the latest message of the clinician's that names any; None when that
    message names several or none does."""
    for message in evidence.messages:
        named = list(dict.fromkeys(drug_dictionary().find(message)))
        if named:
            return named[0] if len(named) == 1 else None
    return None


def _given(drug: str, evidence: Evidence) -> bool:
    generics = {g.lower() for g in drug_dictionary().find(drug)}
    return bool(generics) and generics <= evidence.drugs


def validate_call(
    spec: ToolSpec,
    args: dict[str, Any],
    *,
    evidence: Evidence | None,
    has_image: bool,
) -> tuple[Validation, BaseModel | None]:
    """Check a call; returns the parsed arguments when it may run.

    ``evidence`` is what the clinician gave this turn; every argument value must be
    grounded in it (``None`` for the clinician's own edit of a proposal, which is given).
    """
    schema = spec.args
    missing_args = ToolErrorType.MISSING_REQUIRED_ARGS
    restated: dict[str, Any] = {}
    if evidence is not None:  # the model's proposal: what the clinician's words hold wins
        restated, unsaid = restated_args(spec, args, evidence)
        if unsaid:
            reason = f"not given by the clinician: {', '.join(unsaid)}"
            return Validation(False, missing_args, unsaid, reason), None
        args = {k: v for k, v in (args | restated).items() if v is not None}
        sentences = sentence_drugs(spec, args)
        meant = referred_drug(evidence) if sentences else None
        if meant and all(isinstance(args[n], str) for n in sentences):
            restated |= dict.fromkeys(sentences, meant)
            args |= restated
        elif sentences:
            reason = f"not a drug name: {', '.join(sentences)}"
            return Validation(False, missing_args, sentences, reason), None
        unknown = unknown_drugs(spec, args, evidence)
        if unknown:
            return Validation(
                False,
                ToolErrorType.UNKNOWN_DRUG_NAME,
                reason=f"no dictionary knows {', '.join(unknown)}",
                question=unknown_drug_question(unknown),
                unknown_drugs=unknown,
            ), None
    try:
        parsed = schema.model_validate(args)
    except ValidationError as exc:
        missing = sorted({str(e["loc"][0]) for e in exc.errors() if e["loc"]})
        return Validation(False, missing_args, missing, f"{exc.error_count()} invalid fields"), None
    for name in _QUERY_FIELDS:
        value = args.get(name)
        if isinstance(value, str) and len(value.strip()) < _MIN_QUERY_CHARS:
            return Validation(False, missing_args, [name], f"{name} is too short"), None
    drugs = args.get("drug_names")
    if isinstance(drugs, list) and len({d.strip().lower() for d in drugs if d.strip()}) < 2:
        return Validation(
            False, missing_args, ["drug_names"], "an interaction check needs two drugs"
        ), None
    dropped: list[str] = []
    narrowed: dict[str, str] = {}
    pruned: dict[str, list[str]] = {}
    if evidence is not None:  # the model's proposal, not the clinician's own edit
        narrowed = narrowed_args(spec, args, evidence.query)
        verdict = ground_args(schema, args | narrowed, evidence)
        if verdict.missing:
            return Validation(
                False,
                missing_args,
                verdict.missing,
                f"not given by the clinician: {', '.join(verdict.missing)}",
            ), None
        if verdict.dropped or verdict.pruned or narrowed:
            dropped, parsed = verdict.dropped, schema.model_validate(verdict.args)
            pruned = verdict.pruned
    if spec.needs_image and not has_image:
        return Validation(False, missing_args, ["image"], "no image is attached"), None
    given = args | narrowed
    tidied = {
        k: v
        for k, v in parsed.model_dump().items()
        if isinstance(v, str) and isinstance(given.get(k), str) and v != given[k]
    }
    return Validation(
        True, dropped=dropped, narrowed=narrowed, pruned=pruned, tidied=tidied, restated=restated
    ), parsed

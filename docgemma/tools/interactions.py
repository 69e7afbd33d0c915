"""Drug Interaction Check: graded interactions (ANSM, offline) plus FDA label excerpts (online).

The ANSM thesaurus is local data, so it is always consulted and gives the severity
and mechanism. Online, each drug's FDA label ``drug_interactions`` section is also
searched for the other drugs' names, and the matching sentences are quoted. When
the app is offline, or openFDA fails in any way (unreachable, slow, busy, broken
reply), the ANSM reference alone answers, and the result says why.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from docgemma.tools import ansm, drug_classes
from docgemma.tools.ansm_english import Rendering, english
from docgemma.tools.args import DrugInteractionArgs
from docgemma.tools.base import (
    Passage,
    Source,
    ToolContext,
    ToolErrorType,
    ToolExample,
    ToolOutcome,
    ToolSpec,
)
from docgemma.tools.drug_safety import clean_drug_name, fetch_label, label_source
from docgemma.tools.facts import RequestPattern, ToolRole
from docgemma.tools.guard import guarded
from docgemma.tools.http import (
    ToolFailure,
    client_for,
    error_outcome,
)
from docgemma.tools.outcomes import UNREACHABLE
from docgemma.tools.text import shorten, squash

log = logging.getLogger(__name__)
LABEL = "Drug Interaction Check"
FDA_SHARE_OF_DEADLINE = 0.6
"""openFDA gets this share of the tool's deadline, leaving time for the offline answer."""
_FDA_PROBLEMS = {
    ToolErrorType.TIMEOUT: "did not answer in time",
    ToolErrorType.RATE_LIMIT: "is busy (rate limit)",
    ToolErrorType.SERVER_ERROR: "had a server error",
    ToolErrorType.MALFORMED_RESPONSE: "sent a reply that could not be read",
    **dict.fromkeys(UNREACHABLE, "could not be reached"),
}
ANSM_SOURCE = Source(
    title="ANSM (France) Thésaurus des interactions médicamenteuses, 2020 edition (offline copy)",
    url="https://ansm.sante.fr/documents/reference/thesaurus-des-interactions-medicamenteuses-1",
    kind="reference",
)


def _distinct_names(names: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for name in names:
        cleaned = squash(name)
        if clean_drug_name(cleaned) and cleaned.lower() not in seen:
            seen[cleaned.lower()] = cleaned
    return list(seen.values())


def _ansm_lookup(
    drugs: list[str], labels: dict[str, dict[str, Any]]
) -> tuple[dict[str, list[ansm.Substance]], list[ansm.Interaction]]:
    """Blocking: resolve the names (falling back on a label's generic name, which knows brands
    the drug dictionary does not) and collect every graded interaction between pairs. A
    combination is every part the thesaurus holds ("co-codamol": codeine and paracetamol),
    each named as the drug asked about."""
    ref = ansm.thesaurus()
    resolved: dict[str, list[ansm.Substance]] = {}
    for drug in drugs:
        generics = (labels.get(drug, {}).get("openfda") or {}).get("generic_name", [])
        for name in (drug, *generics):
            if found := drug_classes.substances(ref, name):
                resolved[drug] = [replace(s, query=drug) for s in found]
                break
    found = [
        i
        for a, b in itertools.combinations(drugs, 2)
        if a in resolved and b in resolved
        for part_a in resolved[a]
        for part_b in resolved[b]
        for i in ref.interactions(part_a, part_b)
    ]
    return resolved, found


def _mention_terms(drug: str, label: dict[str, Any] | None) -> set[str]:
    terms = {drug.lower()}
    if label:
        for generic in (label.get("openfda") or {}).get("generic_name", []):
            terms.add(generic.lower().split(" ")[0])
    return {t for t in terms if len(t) >= 4}


def label_mentions(
    labels: dict[str, dict[str, Any]], drugs: list[str], max_excerpts: int = 2
) -> list[dict[str, str]]:
    """Sentences of one drug's label interaction section that name another drug of the list."""
    mentions = []
    for a, b in itertools.permutations(drugs, 2):
        label = labels.get(a)
        text = " ".join(" ".join((label or {}).get("drug_interactions", [])).split())
        if not text:
            continue
        terms = _mention_terms(b, labels.get(b))
        if not terms:
            continue
        pattern = re.compile(r"\b(" + "|".join(re.escape(t) for t in terms) + r")\b", re.I)
        sentences = [s for s in re.split(r"(?<=[.;])\s+", text) if pattern.search(s)]
        for sentence in sentences[:max_excerpts]:
            mentions.append({"label_of": a, "mentions": b, "excerpt": shorten(sentence, 300)})
    return mentions


NONE_GRADED = (
    "This reference grades no interaction between these drugs; a pair it does not list may "
    "still interact."
)
"""What the thesaurus says of a pair it does not grade: a finding an answer may cite, which
says what a missing entry means (not that the drugs are safe together)."""


def asked_about(drugs: Sequence[str], question: str | None) -> list[str]:
    """The drugs the clinician's question names among more checked: "Does any of her
    medication interact with ciprofloxacin?" checks her list with ciprofloxacin, and asks
    about ciprofloxacin. Empty when the question names all of them, or none (a name the
    question spells otherwise, a brand for a generic, is not told apart)."""
    if not question:
        return []
    named = [d for d in drugs if re.search(rf"\b{re.escape(d)}\b", question, re.I)]
    return named if len(named) < len(drugs) else []


def none_with_others(asked: Sequence[str]) -> str:
    """What the thesaurus says when it grades other pairs of the list but none with ``asked``."""
    return (
        f"This reference grades no interaction of {' or '.join(asked)} with the other drugs; a "
        "pair it does not list may still interact."
    )


def antivitamin_k_lines(
    resolved: dict[str, list[ansm.Substance]], graded: Sequence[ansm.Interaction]
) -> list[tuple[str, str, str]]:
    """``(antivitamin K, other drug, line)`` for each pair with an antivitamin K that the
    thesaurus does not grade: its note on them applies instead (many reported cases of a
    raised effect with antibiotics; an INR check whenever a drug is started or stopped)."""
    done = {frozenset((i.drug_a, i.drug_b)) for i in graded}
    lines = []
    for avk, other in itertools.permutations(resolved, 2):
        if (
            frozenset((avk, other)) in done
            or not any(map(ansm.is_antivitamin_k, resolved[avk]))
            or any(map(ansm.is_antivitamin_k, resolved[other]))
        ):
            continue
        antibacterial = drug_classes.is_antibacterial(drug_classes.names_of(other))
        note = ansm.antivitamin_k_note(antibacterial)
        said = english(note) if note else None
        if said is None or not said.complete:
            continue
        what = (
            "check the INR, bleeding risk"
            if antibacterial
            else f"check the INR when {other} is started or stopped"
        )
        lines.append(
            (avk, other, f"- {avk} + {other}: not graded as a pair; {what}. The reference's "
             f"note on vitamin K antagonists: {said.text}")
        )  # fmt: skip
    return lines


def format_result(
    drugs: list[str],
    graded: list[ansm.Interaction],
    mentions: list[dict[str, str]],
    unknown: list[str],
    online: bool,
    not_graded: Sequence[str] = (),
    fda_problem: str | None = None,
    asked: Sequence[str] = (),
    noted: Sequence[str] = (),
) -> str:
    lines = [f"Interaction check for: {', '.join(drugs)}."]
    if unknown:  # second, so that a shortened result still says what went unchecked
        lines.append(
            f"Not in the available references, so not checked for interactions: "
            f"{', '.join(unknown)}."
        )
    lines.append(f"Graded interactions — {ansm.PROVENANCE}, translated from French:")
    if graded:
        lines.extend(graded_lines(graded))
        if asked and not _involving(graded, asked) and not noted:
            lines.append(f"- {none_with_others(asked)}")
    elif not noted:
        lines.append(f"- {NONE_GRADED}")
    lines.extend(noted)
    if not_graded:
        lines.append(f"- Not covered by this reference: {', '.join(not_graded)}.")
    if online:
        lines.append("FDA drug labels (openFDA), drug-interaction sections:")
        if mentions:
            lines.extend(
                f'- {m["label_of"]} label mentions {m["mentions"]}: "{m["excerpt"]}"'
                for m in mentions
            )
        else:
            silent = "- No label names the other drug(s) in its drug-interaction section"
            # a model reads the bare line, last in the result, as "they do not interact"
            lines.append(
                f"{silent}; the graded interactions above still apply." if graded else f"{silent}."
            )
    elif fda_problem:
        lines.append(
            f"FDA labels could not be consulted: openFDA {fda_problem}. The graded "
            "interactions above come from the offline ANSM reference alone."
        )
    else:
        lines.append("FDA labels were not consulted (offline).")
    return "\n".join(lines)


def _asks(asked: Sequence[str], *drugs: str) -> bool:
    return not asked or bool(set(drugs) & set(asked))


def _involving(graded: Sequence[ansm.Interaction], asked: Sequence[str]) -> list[ansm.Interaction]:
    """The graded pairs with a drug of ``asked`` in them; all of them when ``asked`` is empty."""
    return [i for i in graded if not asked or {i.drug_a, i.drug_b} & set(asked)]


def _said(label: str, rendering: Rendering) -> str:
    return rendering.said(label)


def graded_lines(graded: Sequence[ansm.Interaction]) -> list[str]:
    """One line per pair (its mechanism, in English) and one per thesaurus level under it.
    A level's line is one sentence holding the pair, the level, what the level asks and the
    effect, so that a statement such as "they must not be used together because of …" can
    quote it whole; its advice follows as a sentence of its own."""
    pairs: dict[tuple[str, str, str], list[ansm.Interaction]] = {}
    for i in graded:  # the thesaurus grades one pair by dose or history: one mechanism
        pairs.setdefault((i.drug_a, i.drug_b, i.mechanism_fr), []).append(i)
    lines = []
    for (a, b, mechanism), entries in pairs.items():
        effect = english(mechanism)
        lines.append(f"- {a} + {b}. {_said('Effect', effect)}")
        for i in entries:
            advice = f" {_said('Advice', english(i.advice_fr))}" if i.advice_fr else ""
            meaning = ansm.LEVEL_MEANING.get(i.severity)
            level = f"{i.severity} ({meaning})" if meaning else i.severity
            because = f", because of: {_lowered(effect.text)}" if effect.complete else "."
            lines.append(f"  - ANSM level for {a} + {b}: {level}{because}{advice}")
    return lines


def _lowered(sentence: str) -> str:
    """A sentence to follow a colon: its first letter lower case unless it starts a name or
    an abbreviation ("INR", "CYP3A4"), and ending with a full stop."""
    first = sentence.split(" ", 1)[0]
    if first[:1].isupper() and first[1:2].islower():
        sentence = sentence[:1].lower() + sentence[1:]
    return sentence if sentence.endswith(".") else sentence + "."


def _unlisted(unknown: list[str], online: bool, fda_problem: str | None) -> str:
    """Which references were searched and did not list these drugs."""
    where = (
        "Neither the ANSM interaction thesaurus nor the FDA drug labels list"
        if online
        else "The offline interaction reference (ANSM thesaurus) does not list"
    )
    names = " and ".join([", ".join(unknown[:-1]), unknown[-1]] if len(unknown) > 1 else unknown)
    fda = f", and the FDA labels could not be consulted (openFDA {fda_problem})"
    fda = fda if fda_problem else ""
    whose = "its interactions" if len(unknown) == 1 else "their interactions"
    return f"{where} {names}{fda}, so {whose} could not be checked."


async def _fetch_labels(ctx: ToolContext, drugs: list[str]) -> dict[str, dict[str, Any]]:
    """Labels by drug; a drug without a label is skipped, any other failure is raised."""
    async with client_for(ctx) as client:
        results = await asyncio.gather(
            *(
                fetch_label(client, d, ctx.settings.tool_timeout_s * FDA_SHARE_OF_DEADLINE)
                for d in drugs
            ),
            return_exceptions=True,
        )
    labels: dict[str, dict[str, Any]] = {}
    for drug, result in zip(drugs, results, strict=True):
        if (
            isinstance(result, ToolFailure)
            and result.error_type is ToolErrorType.DRUG_NOT_IN_DATABASE
        ):
            continue
        if isinstance(result, BaseException):
            raise result
        labels[drug] = result
    return labels


@guarded(LABEL, lambda a: ", ".join(_distinct_names(list(a.drug_names or []))) or None)
async def check_drug_interactions(args: DrugInteractionArgs, ctx: ToolContext) -> ToolOutcome:
    drugs = _distinct_names(list(args.drug_names or []))
    entity = ", ".join(drugs) or None
    if len(drugs) < 2:
        return error_outcome(
            ToolErrorType.INVALID_ARGS,
            LABEL,
            entity=entity,
            detail=f"drug_names={args.drug_names!r}",
            message="At least two different drug names are needed to check for interactions.",
        )
    labels: dict[str, dict[str, Any]] = {}
    online = not ctx.settings.offline
    fda_problem: str | None = None
    if online:
        try:
            labels = await _fetch_labels(ctx, drugs)
        except ToolFailure as failure:
            if failure.error_type is ToolErrorType.AMBIGUOUS_DRUG_NAME:
                raise  # the clinician is asked which product was meant
            log.info("openFDA failed (%s): %s", failure.error_type.value, failure.detail)
            fda_problem = _FDA_PROBLEMS.get(failure.error_type, "could not be used")
        except Exception:  # noqa: BLE001 — any openFDA problem falls back on ANSM
            log.exception("openFDA labels could not be used")
            fda_problem = "could not be used"
        online = fda_problem is None
    resolved, graded = await asyncio.to_thread(_ansm_lookup, drugs, labels)
    unknown = [d for d in drugs if d not in resolved and d not in labels]
    if len(drugs) - len(unknown) < 2:
        return error_outcome(
            ToolErrorType.DRUG_NOT_IN_DATABASE,
            LABEL,
            entity=", ".join(unknown),
            detail=f"recognised: ANSM={sorted(resolved)}, FDA labels={sorted(labels)}",
            message=_unlisted(unknown, online, fda_problem),
        )
    mentions = label_mentions(labels, drugs) if online else []
    data = {
        "drugs": drugs,
        "interactions": [
            {
                "drug_a": i.drug_a,
                "drug_b": i.drug_b,
                "severity": i.severity,
                "severity_fr": i.severity_fr,
                "mechanism": english(i.mechanism_fr).text,
                "advice": english(i.advice_fr).text if i.advice_fr else "",
                "mechanism_fr": i.mechanism_fr,
                "advice_fr": i.advice_fr,
                "source": ansm.PROVENANCE,
            }
            for i in graded
        ],
        "label_mentions": mentions,
        "not_found": unknown,
        "ansm_substances": {d: ", ".join(s.name for s in parts) for d, parts in resolved.items()},
        "online": online,
        "fda_labels_unavailable": fda_problem,
    }
    sources = [ANSM_SOURCE] if resolved else []
    sources += [label_source(labels[d], d) for d in drugs if d in labels] if online else []
    # what the question asks about is the finding; pairs among the rest are context
    asked = asked_about(drugs, ctx.question)
    about = _involving(graded, asked)
    noted = [line for a, b, line in antivitamin_k_lines(resolved, graded) if _asks(asked, a, b)]
    graded_texts = graded_lines(about) + noted or (
        [none_with_others(asked) if graded else NONE_GRADED] if len(resolved) > 1 else []
    )
    passages = [Passage(source=0, section="Graded interactions", text=t) for t in graded_texts]
    with_label = [d for d in drugs if d in labels] if online else []
    passages += [
        Passage(
            source=len(sources) - len(with_label) + with_label.index(m["label_of"]),
            section="Drug interactions",
            text=m["excerpt"],
        )
        for m in mentions
        if m["label_of"] in with_label
        and (not asked or m["label_of"] in asked or m["mentions"] in asked)
    ]
    return ToolOutcome(
        data=data,
        formatted=format_result(
            drugs,
            graded,
            mentions,
            unknown,
            online,
            not_graded=[d for d in drugs if d in labels and d not in resolved],
            fda_problem=fda_problem,
            asked=asked,
            noted=noted,
        ),
        entity=entity,
        sources=sources,
        passages=passages if resolved or with_label else [],
        unchecked=unknown,
        not_consulted=[f"the FDA drug labels (openFDA {fda_problem})"] if fda_problem else [],
    )


SPEC = ToolSpec(
    name="check_drug_interactions",
    label=LABEL,
    description=(
        "Check for known interactions between two or more drugs. Returns severity, mechanism, "
        "and clinical significance. Use when a clinician asks about combining medications or "
        "potential drug-drug interactions."
    ),
    short_description="Interactions between two or more drugs, with severity.",
    args=DrugInteractionArgs,
    run=check_drug_interactions,
    example=ToolExample(
        query="Can I give amiodarone to a patient on warfarin?",
        args={"drug_names": ["warfarin", "amiodarone"]},
    ),
    brief_answer=True,
    role=ToolRole.CHECKS_INTERACTIONS,
    requested_by=(
        RequestPattern(
            "drug_interaction",
            any_of=("interaction", "interact", "interacting", "combining", "together with"),
        ),
    ),
)

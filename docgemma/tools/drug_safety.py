"""Drug Safety Report: the FDA label's own sections for a drug question (openFDA).

A question about safety gets the boxed warning, contraindications and warnings; a question
about mechanism, dosing, renal or hepatic impairment, pregnancy, lactation, adverse
reactions or interactions gets those sections instead (``label_sections``), each as its own
citable passage. Nothing offline carries FDA labels, so offline this tool says so plainly
instead of letting the model answer from memory. ``fetch_label`` is shared with the
interaction check, which reads the same labels' drug-interaction sections.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from docgemma.tools.args import DrugSafetyArgs
from docgemma.tools.base import (
    Passage,
    Source,
    ToolContext,
    ToolErrorType,
    ToolExample,
    ToolOutcome,
    ToolSpec,
)
from docgemma.tools.facts import RequestPattern, ToolRole
from docgemma.tools.guard import guarded
from docgemma.tools.http import (
    ToolFailure,
    client_for,
    error_outcome,
    get_json,
    offline_outcome,
)
from docgemma.tools.label_sections import LabelPassage, asked_aspects, passages_for
from docgemma.tools.text import shorten

LABEL = "Drug Safety Report"
OPENFDA_LABEL_URL = "https://api.fda.gov/drug/label.json"
SERVICE = "the FDA drug label service (openFDA)"

BOXED_WARNING = "BOXED WARNING:"
_SECTION_LIMITS = {"boxed_warning": 600, "contraindications": 400, "warnings": 700}
_COMBINATION = re.compile(r"\band\b|,")
_LUCENE_SPECIAL = re.compile(r'[+\-!(){}\[\]^"~*?:\\/&|]')
_HEADING = re.compile(
    r"^\s*(\d+(\.\d+)*\s+)?"
    r"(BOXED WARNING|CONTRAINDICATIONS|WARNINGS AND PRECAUTIONS|WARNINGS|PRECAUTIONS"
    r"|DRUG INTERACTIONS)\s*:?\s*"
)


def clean_drug_name(name: str) -> str:
    """A drug name safe to put inside an openFDA (Lucene) phrase query."""
    return " ".join(_LUCENE_SPECIAL.sub(" ", name).split())


def section_text(result: dict[str, Any], *keys: str) -> str:
    """The first of the label's ``keys`` it has, without its own heading."""
    for key in keys:
        parts = result.get(key)
        if parts:
            return _HEADING.sub("", " ".join(parts), count=1)
    return ""


def _first(openfda: dict[str, Any], key: str) -> str | None:
    values = openfda.get(key) or []
    return values[0] if values else None


def _richness(result: dict[str, Any]) -> int:
    keys = (
        "boxed_warning",
        "contraindications",
        "warnings_and_cautions",
        "warnings",
        "drug_interactions",
    )
    return sum(1 for k in keys if result.get(k))


async def fetch_label(client: httpx.AsyncClient, drug: str, deadline_s: float) -> dict[str, Any]:
    """The most complete recent FDA label for ``drug`` (generic or brand name)."""
    name = clean_drug_name(drug)
    if not name:
        raise ToolFailure(ToolErrorType.INVALID_ARGS, f"unusable drug name {drug!r}")
    params = {
        "search": f'openfda.generic_name:"{name}" OR openfda.brand_name:"{name}"',
        "limit": 5,
        "sort": "effective_time:desc",
    }
    body = await get_json(
        client,
        OPENFDA_LABEL_URL,
        params,
        deadline_s=deadline_s,
        not_found=ToolErrorType.DRUG_NOT_IN_DATABASE,
    )
    if not isinstance(body, dict) or not isinstance(body.get("results", []), list):
        raise ToolFailure(
            ToolErrorType.MALFORMED_RESPONSE, f"unexpected openFDA body: {str(body)[:200]}"
        )
    results = [r for r in body.get("results", []) if isinstance(r, dict)]
    if not results:
        raise ToolFailure(
            ToolErrorType.DRUG_NOT_IN_DATABASE, f"openFDA returned no label for {name!r}"
        )
    return max(meant(results, name), key=_richness)


def _name(label: dict[str, Any], key: str) -> str:
    return " ".join((_first(label.get("openfda") or {}, key) or "").lower().split())


def _generic(label: dict[str, Any]) -> str:
    return _name(label, "generic_name")


def meant(labels: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The labels of the product ``name`` means; an ambiguous name is a failure, not a guess.

    A phrase search matches every label whose brand or generic name contains the name.
    A generic name ("metformin") keeps the labels of that generic, single-ingredient ones
    first (not "glipizide and metformin"); a brand keeps the labels of exactly that brand
    ("Keytruda", not "Keytruda Qlex"). A name whose remaining labels are of several
    generics ("Advil" matching only "Advil PM" and "Advil Cold & Sinus") is ambiguous:
    the clinician is asked which one was meant.
    """
    wanted = " ".join(name.lower().split())
    phrase = re.compile(rf"\b{re.escape(wanted)}\b")
    as_generic = [label for label in labels if phrase.search(_generic(label))]
    if as_generic:
        single = [label for label in as_generic if not _COMBINATION.search(_generic(label))]
        return single or as_generic
    as_brand = [label for label in labels if _name(label, "brand_name") == wanted] or labels
    generics = sorted({g for g in map(_generic, as_brand) if g})
    if len(generics) > 1:
        raise ToolFailure(
            ToolErrorType.AMBIGUOUS_DRUG_NAME,
            f"openFDA labels for {name!r} are of {len(generics)} generics: {generics}",
            suggestions=generics,
        )
    return as_brand


def label_source(label: dict[str, Any], drug: str) -> Source:
    openfda = label.get("openfda") or {}
    set_id = label.get("set_id") or _first(openfda, "spl_set_id")
    brand, generic = _first(openfda, "brand_name"), _first(openfda, "generic_name")
    names = " / ".join(n for n in (brand, generic and generic.lower()) if n) or drug
    url = f"https://dailymed.nlm.nih.gov/dailymed/lookup.cfm?setid={set_id}" if set_id else None
    return Source(title=f"FDA drug label: {names}", url=url, kind="label")


def summarize_label(label: dict[str, Any], drug: str) -> dict[str, Any]:
    """The safety facts of one label, each section shortened for a small model's context."""
    openfda = label.get("openfda") or {}
    return {
        "drug": drug,
        "brand_name": _first(openfda, "brand_name"),
        "generic_name": _first(openfda, "generic_name"),
        "manufacturer": _first(openfda, "manufacturer_name"),
        "set_id": label.get("set_id") or _first(openfda, "spl_set_id"),
        "effective_time": label.get("effective_time"),
        "boxed_warning": shorten(
            section_text(label, "boxed_warning"), _SECTION_LIMITS["boxed_warning"]
        ),
        "contraindications": shorten(
            section_text(label, "contraindications"), _SECTION_LIMITS["contraindications"]
        ),
        "warnings": shorten(
            section_text(label, "warnings_and_cautions", "warnings", "precautions"),
            _SECTION_LIMITS["warnings"],
        ),
    }


def format_label(data: dict[str, Any], passages: list[LabelPassage], missing: list[str]) -> str:
    """The label's passages, each under the label's own section name."""
    names = " / ".join(n for n in (data["brand_name"], data["generic_name"]) if n) or data["drug"]
    maker = f", {data['manufacturer']}" if data["manufacturer"] else ""
    lines = [f"FDA label for {names}{maker}:"]
    if not any(p.field == "boxed_warning" for p in passages):
        lines.append("No boxed warning on this label.")
    for p in passages:
        name = BOXED_WARNING if p.field == "boxed_warning" else f"{p.section}:"
        lines.append(f"{name} {p.text}")
    missing = [m for m in missing if m != "boxed warning"]  # said above
    if missing:
        lines.append(f"This label has no section on: {', '.join(missing)}.")
    if not passages:
        lines.append("The label found lists none of the sections asked about.")
    return "\n".join(lines)


@guarded(LABEL, lambda a: (a.drug_name or "").strip() or None, service=SERVICE)
async def check_drug_safety(args: DrugSafetyArgs, ctx: ToolContext) -> ToolOutcome:
    drug = (args.drug_name or "").strip()
    if not clean_drug_name(drug):
        return error_outcome(
            ToolErrorType.INVALID_ARGS,
            LABEL,
            entity=drug or None,
            detail=f"drug_name={drug!r}",
            message="A drug name is needed to look up its FDA safety information.",
        )
    if ctx.settings.offline:
        return offline_outcome(LABEL, SERVICE, entity=drug)
    async with client_for(ctx) as client:
        label = await fetch_label(client, drug, ctx.settings.tool_timeout_s)
    aspects = asked_aspects(ctx.question)
    found, missing = passages_for(label, aspects)
    data = summarize_label(label, drug) | {
        "asked": [a.name for a in aspects],
        "sections": [{"section": p.section, "text": p.text} for p in found],
        "missing_sections": missing,
    }
    return ToolOutcome(
        data=data,
        formatted=format_label(data, found, missing),
        entity=drug,
        sources=[label_source(label, drug)],
        passages=[Passage(source=0, section=p.section, text=p.text) for p in found],
    )


SPEC = ToolSpec(
    name="check_drug_safety",
    label=LABEL,
    description=(
        "Look up FDA boxed warnings, contraindications, and major safety alerts for a specific "
        "drug. Use when a clinician asks about drug safety, warnings, or whether a drug is safe "
        "for a particular patient."
    ),
    short_description="One drug's FDA label: warnings, dosing, populations, mechanism.",
    args=DrugSafetyArgs,
    run=check_drug_safety,
    example=ToolExample(
        query="What are the FDA warnings for warfarin?", args={"drug_name": "warfarin"}
    ),
    brief_answer=True,
    role=ToolRole.READS_LABEL,
    requested_by=(
        # "warning" alone is not enough: "warning signs" of a disease are not a drug label
        RequestPattern(
            "drug_safety",
            any_of=(
                "safety",
                "warnings",
                "boxed warning",
                "black box",
                "FDA",
                "warning about",
                "warning for",
                "warning on",
            ),
        ),
    ),
)

"""A proposed prescription checked against the patient's chart, by code, before approval.

The questions a pharmacist asks of a new order, each answered from a source the project
holds offline, or online from the drug's label:

- does the drug interact with one the patient already takes? The ANSM thesaurus grades
  the pair; for a patient on an antivitamin K, the thesaurus's own note asks for the INR
  to be checked whenever a drug is started, an antibiotic above all;
- is the patient allergic to it, to its class, or to a class that cross-reacts
  (``drug_classes``)?
- is it already prescribed?
- for a drug the thesaurus lacks, does its FDA label name the other drug among those
  not to combine it with (``label_interactions``, online only)?
- what is the latest kidney function? It is shown; no source the project holds gives
  renal dose thresholds, so none is checked, and the card says so rather than guess.

Nothing here calls a model; the chart is read over FHIR like any record read.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from docgemma.ehr.chart import (
    Measurement,
    concept_text,
    human_name,
    is_current_allergy,
    latest_by_code,
)
from docgemma.ehr.client import EHRClient, EHRError
from docgemma.tools import ansm, drug_classes
from docgemma.tools.ansm_english import english
from docgemma.tools.args import PrescribeMedicationArgs
from docgemma.tools.base import ToolContext
from docgemma.tools.ehr_guard import ehr_client
from docgemma.tools.label_interactions import LabelPair, label_findings
from docgemma.tools.write_review import Finding, WriteReview, not_checked

log = logging.getLogger(__name__)

RENAL_CODES = {
    "33914-3": "eGFR",
    "48642-3": "eGFR",
    "48643-1": "eGFR",
    "50044-7": "eGFR",
    "62238-1": "eGFR",
    "69405-9": "eGFR",
    "88293-6": "eGFR",
    "88294-4": "eGFR",
    "98979-8": "eGFR",
    "2164-2": "creatinine clearance",
    "2160-0": "creatinine",
    "38483-4": "creatinine",
}
"""LOINC codes of kidney function: estimated GFR, measured creatinine clearance, serum
creatinine. The first two are preferred; creatinine is shown when neither is charted."""
ANSM_NAME = "ANSM interaction thesaurus (France, offline)"
NOT_CHECKED_RENAL = (
    "no renal dose threshold was checked: no source the assistant holds offline gives one"
)


@dataclass(frozen=True)
class Allergy:
    substance: str
    reaction: str = ""
    """Manifestations and severity as recorded ("hives, moderate")."""


@dataclass(frozen=True)
class ChartFacts:
    """What the check reads from the chart: active medications, allergies, kidney function."""

    patient: str
    medications: tuple[str, ...] = ()
    allergies: tuple[Allergy, ...] = ()
    renal: Measurement | None = None


def _allergy(resource: dict[str, Any]) -> Allergy:
    details: list[str] = []
    for reaction in resource.get("reaction", []):
        details += [concept_text(m) for m in reaction.get("manifestation", [])]
        if reaction.get("severity"):
            details.append(reaction["severity"])
    return Allergy(concept_text(resource.get("code")), ", ".join(details))


def latest_renal(observations: list[dict[str, Any]]) -> Measurement | None:
    """The latest eGFR or creatinine clearance, else the latest serum creatinine."""
    coded = [
        o
        for o in observations
        if any(c.get("code") in RENAL_CODES for c in (o.get("code") or {}).get("coding", []))
    ]
    latest = latest_by_code(coded)
    preferred = [m for m in latest if RENAL_CODES.get(m.code or "") != "creatinine"]
    return (preferred or latest or [None])[0]


async def read_chart(
    client: EHRClient, patient_id: str, *, leaving_out: str | None = None
) -> ChartFacts:
    """The chart's facts, without entries marked entered in error and without
    ``leaving_out`` ("MedicationRequest/…"): the entry a correction replaces is not a
    medication the corrected one would duplicate."""
    patient, meds, allergies, observations = await asyncio.gather(
        client.read("Patient", patient_id),
        client.search("MedicationRequest", patient=patient_id, count=100),
        client.search("AllergyIntolerance", patient=patient_id, count=100),
        client.search("Observation", patient=patient_id, sort="-date", count=200),
    )
    return ChartFacts(
        patient=f"{human_name(patient)} ({patient_id})",
        medications=tuple(
            dict.fromkeys(
                concept_text(m.get("medicationCodeableConcept"))
                for m in meds
                if m.get("status") in (None, "active")
                and f"MedicationRequest/{m.get('id')}" != leaving_out
            )
        ),
        allergies=tuple(_allergy(a) for a in allergies if is_current_allergy(a)),
        renal=latest_renal(observations),
    )


# ── the check itself: pure ──


_SEVERITY = {4: "warning", 3: "warning", 2: "caution", 1: "caution"}


def _graded(drug: str, med: str, entries: list[ansm.Interaction]) -> Finding:
    top = max(entries, key=lambda i: i.rank)
    said = [english(m).said("Effect") for m in dict.fromkeys(i.mechanism_fr for i in entries)]
    said += [
        english(a).said("Advice")
        for a in dict.fromkeys(i.advice_fr for i in entries if i.advice_fr)
    ]
    detail = " ".join(s if s.endswith(".") else f"{s}." for s in said)
    return Finding(
        kind="interaction",
        severity=_SEVERITY.get(top.rank, "caution"),  # type: ignore[arg-type]
        title=f"{drug} with {med} (in the chart): {top.severity.lower()}",
        detail=detail,
        source=ANSM_NAME,
    )


def _antivitamin_k(drug: str, med: str, antibacterial: bool) -> Finding | None:
    """The thesaurus's own note on antivitamin K, for a pair it does not grade."""
    quote = ansm.antivitamin_k_note(antibacterial)
    if antibacterial:
        title = f"{med} (in the chart) with an antibiotic: check the INR, bleeding risk"
        what = "The reference reports many cases of a raised antivitamin K effect with antibiotics"
        severity = "warning"
    else:
        title = f"{med} (in the chart): check the INR when {drug} is started"
        what = "The reference asks for the INR whenever a drug is started or stopped"
        severity = "info"
    if not quote:  # the note does not say it: nothing is claimed
        return None
    said = english(quote)  # the glossary's English, or the French when it lacks a word
    shown = (
        f'"{said.text}" (translated from the French)' if said.complete else f'"{quote}" (French)'
    )
    return Finding(
        kind="interaction",
        severity=severity,  # type: ignore[arg-type]
        title=title,
        detail=f"{what}: {shown}",
        source=ANSM_NAME,
    )


def unlisted_pairs(drug: str, medications: Iterable[str]) -> list[LabelPair]:
    """The pairs the interaction reference cannot grade because it lacks one of the drugs:
    that drug's label is read for the other one."""
    ref = ansm.thesaurus()
    new_listed = bool(drug_classes.substances(ref, drug))
    pairs = []
    for med in medications:
        if drug_classes.names_of(drug) & drug_classes.names_of(med):
            continue  # a duplicate, said as such
        title = f"{drug} with {med} (in the chart)"
        if not new_listed:
            pairs.append(LabelPair(label_of=drug, other=med, title=title))
        if not drug_classes.substances(ref, med):
            pairs.append(LabelPair(label_of=med, other=drug, title=title))
    return pairs


def interactions(
    drug: str, medications: Iterable[str], read_on_label: Collection[str] = ()
) -> list[Finding]:
    """The reference's graded pairs and notes; ``read_on_label``: the drugs it lacks whose
    label was read (``label_interactions``), said to be checked there only."""
    ref = ansm.thesaurus()
    new = drug_classes.substances(ref, drug)
    names = drug_classes.names_of(drug)
    antibacterial = drug_classes.is_antibacterial(
        names.union(*(drug_classes.names_of(p) for p in drug_classes.components(drug)))
    )
    findings: list[Finding] = []
    unchecked: list[str] = []
    for med in medications:
        if names & drug_classes.names_of(med):
            findings.append(
                Finding(
                    kind="duplicate",
                    severity="caution",
                    title=f"{med} is already an active medication in the chart",
                )
            )
            continue
        held = drug_classes.substances(ref, med)
        if not held:
            unchecked.append(med)
            continue
        graded = [i for a in new for b in held for i in ref.interactions(a, b)]
        if graded:
            findings.append(_graded(drug, med, graded))
        elif new and any(ansm.is_antivitamin_k(b) for b in held):
            note = _antivitamin_k(drug, med, antibacterial)
            findings += [note] if note else []
    if not new:
        unchecked.insert(0, drug)
    on_label = [d for d in unchecked if d in read_on_label]
    if on_label:
        findings.append(
            Finding(
                kind="interaction",
                severity="info",
                title=f"Interactions of {', '.join(on_label)} checked on the FDA label only",
                detail=(
                    "Not in the offline interaction reference; a drug the label does not "
                    "name may still interact."
                ),
            )
        )
    if unchecked := [d for d in unchecked if d not in read_on_label]:
        findings.append(
            Finding(
                kind="interaction",
                severity="caution",
                title=f"Interactions not checked for {', '.join(unchecked)}",
                detail="Not in the offline interaction reference; check another source.",
                source=ANSM_NAME,
            )
        )
    return findings


def allergies(drug: str, recorded: Iterable[Allergy]) -> list[Finding]:
    names = drug_classes.names_of(drug).union(
        *(drug_classes.names_of(p) for p in drug_classes.components(drug))
    )
    given = drug_classes.classes_of(names, for_allergy=True)
    findings: list[Finding] = []
    for allergy in recorded:
        what = f"Allergy to {allergy.substance} recorded" + (
            f" ({allergy.reaction})" if allergy.reaction else ""
        )
        if drug_classes.same_substance(names, allergy.substance):
            findings.append(Finding(kind="allergy", severity="warning", title=what))
            continue
        held = drug_classes.classes_named(allergy.substance)
        shared = [c.name for c in given if c in held]
        if shared:
            title = f"{what}: {drug} is one of the {shared[0]}"
            findings.append(Finding(kind="allergy", severity="warning", title=title))
            continue
        for cross in drug_classes.cross_reactions(held, given):
            findings.append(
                Finding(
                    kind="cross_reactivity",
                    severity=cross.severity,  # type: ignore[arg-type]
                    title=f"{what}: {drug} is one of the {cross.drug_class}",
                    detail=cross.note[0].upper() + cross.note[1:] + ".",
                )
            )
    return findings


def renal(drug: str, latest: Measurement | None) -> Finding:
    if latest is None:
        title = "No eGFR, creatinine clearance or creatinine in the chart"
    else:
        title = f"Latest {RENAL_CODES.get(latest.code or '', latest.name)}: {latest.value}"
        title += f" ({latest.date})" if latest.date else ""
    return Finding(
        kind="renal",
        severity="info",
        title=title,
        detail=f"For {drug}, {NOT_CHECKED_RENAL}.",
        source="the chart",
    )


def _counted(n: int, one: str, many: str, items: Iterable[str]) -> str:
    listed = ", ".join(items)
    return f"{n} {one if n == 1 else many}" + (f" ({listed})" if listed else "")


def check(
    drug: str,
    chart: ChartFacts,
    on_label: Iterable[Finding] = (),
    read_on_label: Collection[str] = (),
) -> WriteReview:
    """Every finding for ``drug`` in this chart, and a line saying what was read;
    ``on_label``: what the labels of drugs the reference lacks gave (``read_on_label``)."""
    drug = " ".join(drug.split())
    found = [
        *allergies(drug, chart.allergies),
        *on_label,
        *interactions(drug, chart.medications, read_on_label),
        renal(drug, chart.renal),
    ]
    read = ", ".join(
        (
            _counted(
                len(chart.medications), "active medication", "active medications", chart.medications
            ),
            _counted(
                len(chart.allergies), "allergy", "allergies", (a.substance for a in chart.allergies)
            ),
            "kidney function" if chart.renal else "no kidney function value",
        )
    )
    return WriteReview(
        checked=f"Checked against the chart of {chart.patient}: {read}.", findings=found
    )


async def review_prescription(args: PrescribeMedicationArgs, ctx: ToolContext) -> WriteReview:
    """The ``ToolSpec.review`` of the prescription tool; never raises."""
    try:
        chart = await read_chart(ehr_client(ctx), args.patient_id.strip(), leaving_out=ctx.replaces)
    except EHRError as exc:
        log.info("chart check could not read %s: %s", args.patient_id, exc)
        why = "the patient is not in the record" if exc.kind == "not_found" else None
        return not_checked(why or "the record could not be read")
    drug = " ".join(args.medication_name.split())
    on_label: list[Finding] = []
    read: set[str] = set()
    if not ctx.settings.offline:  # labels are read online only: no pairs to find offline
        pairs = await asyncio.to_thread(unlisted_pairs, drug, chart.medications)
        on_label, read = await label_findings(pairs, ctx)
    return await asyncio.to_thread(check, drug, chart, on_label, read)

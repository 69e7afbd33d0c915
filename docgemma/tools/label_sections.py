"""Which parts of a drug's FDA label answer a question: the table a pharmacist would use.

A drug question asks about one aspect of the drug — how it works, how to dose it, what to
do in renal or hepatic impairment, in pregnancy or breastfeeding, its adverse effects,
boxed warning, contraindications or interactions — and the label answers each in its own
sections. ``ASPECTS`` maps the words of a question to those sections (openFDA's field
names), and for the populations to the numbered subsection of the section that holds them
("8.6 Renal Impairment" inside "Use in specific populations"). Each section found becomes
its own citable passage, named as the label names it; a section the label does not have
is reported as missing, never filled in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from docgemma.tools.text import shorten, squash

PASSAGE_CHARS = 700
"""Longest passage kept of one section: the opening, cut at a sentence."""


@dataclass(frozen=True)
class Aspect:
    """One kind of drug question and where the label answers it."""

    name: str
    asked_by: tuple[str, ...]
    """Word beginnings in a question that ask about this aspect."""
    sections: tuple[str, ...]
    """openFDA label fields holding the answer, most specific first."""
    subsections: tuple[str, ...] = ()
    """Numbered subsection headings to read inside those fields, when the answer is one."""


ASPECTS: tuple[Aspect, ...] = (
    Aspect("boxed warning", ("boxed", "black box", "black-box"), ("boxed_warning",)),
    Aspect(
        "mechanism of action",
        ("mechanism", "how does", "how do", "mode of action", "moa", "pharmacolog", "work"),
        ("mechanism_of_action", "clinical_pharmacology"),
    ),
    Aspect(
        "renal impairment",
        ("renal", "kidney", "creatinine", "crcl", "gfr", "egfr", "ckd", "dialysis", "nephr"),
        ("dosage_and_administration", "use_in_specific_populations"),
        subsections=("renal impairment",),
    ),
    Aspect(
        "hepatic impairment",
        ("hepatic", "liver", "cirrho", "child-pugh", "child pugh"),
        ("dosage_and_administration", "use_in_specific_populations"),
        subsections=("hepatic impairment",),
    ),
    Aspect(
        "pregnancy",
        ("pregnan", "trimester", "fetal", "fetus", "foetal", "teratogen", "conception"),
        ("pregnancy", "use_in_specific_populations"),
        subsections=("pregnancy",),
    ),
    Aspect(
        "lactation",
        ("breastfeed", "breast-feed", "breast feed", "lactat", "nursing"),
        ("nursing_mothers", "use_in_specific_populations"),
        subsections=("lactation", "nursing mothers"),
    ),
    Aspect(
        "dosing",
        ("dose", "dosing", "dosage", "how much", "titrat", "mg/kg", "regimen", "loading"),
        ("dosage_and_administration",),
    ),
    Aspect(
        "adverse reactions",
        ("side effect", "side-effect", "adverse", "reaction", "toxicit"),
        ("adverse_reactions",),
    ),
    Aspect("contraindications", ("contraindicat",), ("contraindications",)),
    Aspect("interactions", ("interact",), ("drug_interactions",)),
    Aspect("overdose", ("overdos",), ("overdosage",)),
    Aspect(
        "indications",
        ("indicat", "used for", "use for", "approved for"),
        ("indications_and_usage",),
    ),
    Aspect(
        "warnings",
        ("warning", "precaution", "safe", "risk", "caution"),
        ("warnings_and_cautions", "warnings", "precautions"),
    ),
)
DEFAULT = ("boxed warning", "contraindications", "warnings")
"""What a question naming no aspect gets: the label's safety sections."""

SECTION_NAMES = {
    "boxed_warning": "Boxed warning",
    "mechanism_of_action": "Mechanism of action",
    "clinical_pharmacology": "Clinical pharmacology",
    "dosage_and_administration": "Dosage and administration",
    "use_in_specific_populations": "Use in specific populations",
    "pregnancy": "Pregnancy",
    "nursing_mothers": "Nursing mothers",
    "adverse_reactions": "Adverse reactions",
    "contraindications": "Contraindications",
    "drug_interactions": "Drug interactions",
    "overdosage": "Overdosage",
    "indications_and_usage": "Indications and usage",
    "warnings_and_cautions": "Warnings and precautions",
    "warnings": "Warnings",
    "precautions": "Precautions",
}
_DEDICATED = frozenset({"pregnancy", "nursing_mothers"})
"""Fields of older labels that hold one population whole."""
_BY_NAME = {a.name: a for a in ASPECTS}
_NUMBERED = re.compile(r"(?<![\w.])(\d{1,2}(?:\.\d{1,2})+)\s+(?=[A-Z])")
_HEADING = re.compile(r"^\s*(\d+(\.\d+)*\s+)?[A-Z][A-Z ,&/-]{3,}(?=\s|$)")
"""A section's own upper-case heading at its start ("8 USE IN SPECIFIC POPULATIONS")."""


def asked_aspects(question: str | None) -> list[Aspect]:
    """The aspects a question asks about, in the table's order; the safety sections when it
    names none. Word beginnings are matched, so "pregnant" asks about pregnancy."""
    text = " ".join((question or "").lower().split())
    found = [a for a in ASPECTS if any(re.search(rf"\b{re.escape(w)}", text) for w in a.asked_by)]
    named = [a for a in found if a.name != "warnings"]
    return named or found or [_BY_NAME[n] for n in DEFAULT]


@dataclass(frozen=True)
class LabelPassage:
    section: str
    """The label's name for it: "Use in specific populations — 8.6 Renal Impairment"."""
    field: str
    text: str


def _field_text(label: dict[str, Any], field: str) -> str:
    parts = label.get(field)
    if isinstance(parts, str):
        parts = [parts]
    return squash(" ".join(p for p in parts or [] if isinstance(p, str)))


def _subsection(text: str, headings: tuple[str, ...]) -> str | None:
    """The numbered subsection ("8.6 Renal Impairment ...") whose heading, within its first
    words ("2.3 Dosage in Patients with Renal Impairment"), names one of ``headings``."""
    marks = list(_NUMBERED.finditer(text))
    for n, mark in enumerate(marks):
        opening = text[mark.end() : mark.end() + 45].lower()
        if any(h in opening for h in headings):
            end = next((m.start() for m in marks[n + 1 :]), len(text))
            return text[mark.start() : end].strip()
    return None


def passages_for(
    label: dict[str, Any], aspects: Iterable[Aspect]
) -> tuple[list[LabelPassage], list[str]]:
    """The label's passages answering the aspects, and the aspects it has no section for.

    A population aspect reads its numbered subsection where the label has one, else the
    dedicated field of older labels ("pregnancy", "nursing_mothers"). The boxed warning is
    always included when the label has one: it applies to every use of the drug.
    """
    passages: list[LabelPassage] = []
    missing: list[str] = []
    seen: set[tuple[str, str]] = set()

    def add(field: str, section: str, text: str) -> None:
        key = (field, section)
        if key not in seen and text:
            seen.add(key)
            passages.append(LabelPassage(section, field, shorten(text, PASSAGE_CHARS)))

    boxed = _field_text(label, "boxed_warning")
    if boxed:
        add("boxed_warning", SECTION_NAMES["boxed_warning"], _HEADING.sub("", boxed, count=1))
    for aspect in aspects:
        before = len(passages)
        for field in aspect.sections:
            text = _field_text(label, field)
            if not text:
                continue
            name = SECTION_NAMES.get(field, field.replace("_", " ").capitalize())
            if not aspect.subsections or field in _DEDICATED:
                add(field, name, _HEADING.sub("", text, count=1))
            elif (part := _subsection(text, aspect.subsections)) is not None:
                add(field, f"{name}: {aspect.name}", part)
            if not aspect.subsections and len(passages) > before:
                break  # the most specific field answers; the rest would repeat it
        if len(passages) == before and not (aspect.name == "boxed warning" and boxed):
            missing.append(aspect.name)
    return passages, missing

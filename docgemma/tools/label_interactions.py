"""A drug the offline interaction reference lacks, checked on its own FDA label.

The interaction reference the project holds offline is French, and lacks drugs sold
mainly elsewhere (dofetilide, for one). For such a drug a pharmacist's next source is its
label: the contraindications and drug-interaction sections name the drugs it must not be
combined with. Code reads those sections (openFDA, when the assistant is online) and looks
for the other drug's names, whole words only; each name found is a finding quoting the
label's sentence. A name not found proves nothing, and the card says the pair was read on
the label only, never that there is no interaction.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from docgemma.tools.ansm import drug_synonyms
from docgemma.tools.base import ToolContext
from docgemma.tools.drug_safety import fetch_label, label_source, section_text
from docgemma.tools.http import client_for
from docgemma.tools.text import squash
from docgemma.tools.write_review import Finding, Severity

log = logging.getLogger(__name__)

SECTIONS: tuple[tuple[str, str, Severity], ...] = (
    ("contraindications", "contraindications", "warning"),
    ("drug_interactions", "drug interactions", "caution"),
    ("warnings_and_cautions", "warnings and precautions", "caution"),
    ("warnings", "warnings", "caution"),
    ("precautions", "precautions", "caution"),
)
"""The label's sections that name drugs not to combine (openFDA field, as shown, and the
card's severity when a name is found there): a contraindication is a warning."""
QUOTE_CHARS = 300
BUDGET_SHARE = 0.5
"""The share of the tools' deadline the labels may take, all read at once: the chart check
runs under that deadline, and its offline findings must reach the card whatever openFDA
does."""
_SENTENCE = re.compile(r"(?<=[.;])\s+(?=[A-Z(])")
_NOT_A_DRUG_NAME = frozenset({"calcium", "iron", "magnesium", "potassium", "sodium", "zinc"})
"""A salt's metal alone is not its name on a label: "potassium" is in "potassium-sparing"."""


@dataclass(frozen=True)
class LabelPair:
    """A drug whose label is read (``label_of``) for the other drug of a pair."""

    label_of: str
    other: str
    title: str
    """The finding's title opening, as the card names the pair."""


def _other_names(drug: str) -> list[str]:
    """The names the label may use for ``drug``: itself, its dictionary names, and each part
    of a combination ("sulfamethoxazole-trimethoprim": trimethoprim alone too)."""
    parts = [p for p in re.split(r"\s*[-/+]\s*|\s+and\s+", drug) if p]
    found = [drug, *parts, *(s for p in parts for s in drug_synonyms(p))]
    return [
        n
        for n in dict.fromkeys(n.lower() for n in found)
        if len(n) > 3 and n not in _NOT_A_DRUG_NAME
    ]


def _sentence_naming(text: str, wanted: list[str]) -> str | None:
    """The label's sentence naming one of ``wanted``; a long one cut around the name."""
    for sentence in _SENTENCE.split(squash(text)):
        hit = next(
            (m for n in wanted if (m := re.search(rf"\b{re.escape(n)}\b", sentence, re.I))), None
        )
        if hit is None:
            continue
        if len(sentence) <= QUOTE_CHARS:
            return sentence
        start = max(0, hit.start() - QUOTE_CHARS // 2)
        end = start + QUOTE_CHARS
        before, after = ("… " if start else ""), (" …" if end < len(sentence) else "")
        return f"{before}{sentence[start:end].strip()}{after}"
    return None


async def label_findings(
    pairs: Iterable[LabelPair], ctx: ToolContext
) -> tuple[list[Finding], set[str]]:
    """The findings the labels give for ``pairs``, and the drugs whose label was read.

    Offline, or when a label cannot be fetched, that drug's pairs are left unread: the
    caller keeps saying they were not checked.
    """
    by_label: dict[str, list[LabelPair]] = {}
    for pair in pairs:
        by_label.setdefault(pair.label_of, []).append(pair)
    if ctx.settings.offline or not by_label:
        return [], set()
    budget = ctx.settings.tool_timeout_s * BUDGET_SHARE
    try:
        async with client_for(ctx) as client:
            labels = await asyncio.wait_for(
                asyncio.gather(
                    *(fetch_label(client, drug, budget) for drug in by_label),
                    return_exceptions=True,
                ),
                timeout=budget,
            )
    except Exception as exc:  # noqa: BLE001 - the labels are extra; the chart check stands
        log.info("no label read for %s: %r", ", ".join(by_label), exc)
        return [], set()
    findings: list[Finding] = []
    read: set[str] = set()
    for (drug, wanted), label in zip(by_label.items(), labels, strict=True):
        if isinstance(label, BaseException):
            log.info("no label read for %s: %r", drug, label)
            continue
        read.add(drug)
        source = label_source(label, drug).title
        findings += [f for pair in wanted if (f := named_on_label(label, pair, source))]
    return findings, read


def named_on_label(label: dict[str, Any], pair: LabelPair, source: str) -> Finding | None:
    """The finding for ``pair`` on this label: the first section that names the other drug."""
    wanted = _other_names(pair.other)
    for field, shown, severity in SECTIONS:
        quote = _sentence_naming(section_text(label, field), wanted)
        if quote:
            return Finding(
                kind="interaction",
                severity=severity,
                title=f"{pair.title}: named in the {shown} of the {pair.label_of} label",
                detail=f'"{quote}"',
                source=source,
            )
    return None

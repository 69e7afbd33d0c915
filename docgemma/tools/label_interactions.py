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

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from docgemma.tools.ansm import drug_synonyms
from docgemma.tools.base import ToolContext
from docgemma.tools.drug_safety import fetch_label, label_source
from docgemma.tools.http import ToolFailure, client_for
from docgemma.tools.text import names, shorten, squash
from docgemma.tools.write_review import Finding

log = logging.getLogger(__name__)

SECTIONS: tuple[tuple[str, str, str], ...] = (
    ("contraindications", "contraindications", "warning"),
    ("drug_interactions", "drug interactions", "caution"),
    ("warnings_and_cautions", "warnings and precautions", "caution"),
    ("warnings", "warnings", "caution"),
)
"""The label's sections that name drugs not to combine (openFDA field, as shown, and the
card's severity when a name is found there): a contraindication is a warning."""
QUOTE_CHARS = 300
_SENTENCE = re.compile(r"(?<=[.;])\s+(?=[A-Z(])")


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
    return list(dict.fromkeys(n.lower() for n in found if len(n) > 3))


def _sentence_naming(text: str, wanted: list[str]) -> str | None:
    for sentence in _SENTENCE.split(squash(text)):
        if any(names(sentence, name) for name in wanted):
            return shorten(sentence, QUOTE_CHARS)
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
    findings: list[Finding] = []
    read: set[str] = set()
    if ctx.settings.offline or not by_label:
        return findings, read
    async with client_for(ctx) as client:
        for drug, wanted in by_label.items():
            try:
                label = await fetch_label(client, drug, ctx.settings.tool_timeout_s)
            except ToolFailure as exc:
                log.info("no label read for %s: %s", drug, exc)
                continue
            read.add(drug)
            source = label_source(label, drug).title
            for pair in wanted:
                found = named_on_label(label, pair, source)
                findings += [found] if found else []
    return findings, read


def named_on_label(label: dict[str, Any], pair: LabelPair, source: str) -> Finding | None:
    """The finding for ``pair`` on this label: the first section that names the other drug."""
    wanted = _other_names(pair.other)
    for field, shown, severity in SECTIONS:
        text = " ".join(label.get(field) or [])
        quote = _sentence_naming(text, wanted)
        if quote:
            return Finding(
                kind="interaction",
                severity=severity,  # type: ignore[arg-type]
                title=f"{pair.title}: named in the {shown} of the {pair.label_of} label",
                detail=f'"{quote}"',
                source=source,
            )
    return None

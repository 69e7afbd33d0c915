"""What the agent knows about a tool besides how to call it, declared on its ``ToolSpec``.

The agent's rules never name a tool: they ask the registry which tool finds a patient,
which ones need a patient or an image, which answers are brief, which words in a
question ask for a tool. Adding or renaming a tool is then an edit of its own module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache


class ToolRole(StrEnum):
    """The part a tool plays in the rules that chain tools."""

    FINDS_PATIENT = "finds_patient"
    """Turns a name into a record id; searched first, skipped once the patient is known."""
    READS_CHART = "reads_chart"
    """Reads the record of a known patient."""
    CHECKS_INTERACTIONS = "checks_interactions"
    """Checks drugs against each other. For a question that asks for it, its finding is
    the answer; a chart read beside it only gave it the patient's list of drugs."""
    READS_LABEL = "reads_label"
    """Reads one drug's label: what a question about a single drug rests on."""
    SEARCHES_EVIDENCE = "searches_evidence"
    """Searches published evidence (literature, trials)."""
    SEARCHES_KNOWLEDGE_BASE = "searches_knowledge_base"
    """Searches the local knowledge base (condition pages, the tenant's own documents):
    what a request's ``enable_rag`` switches on and off."""


@dataclass(frozen=True)
class RequestPattern:
    """Words by which a clinician's question asks for a tool (the task patterns).

    Tools sharing a pattern (the same ``name``) are asked for together, e.g. a patient
    search and a chart review by "his record".
    """

    name: str
    any_of: tuple[str, ...] = ()
    """The query mentions at least one of these."""
    all_of: tuple[tuple[str, ...], ...] = ()
    """The query mentions one word of every group."""

    def position(self, query: str) -> int | None:
        """Where the query first asks for this task; None when it does not."""
        groups = ((self.any_of,) if self.any_of else ()) + self.all_of
        found = [_first_mention(query, group) for group in groups]
        if not found or None in found:
            return None
        return min(p for p in found if p is not None)


def _first_mention(query: str, words: tuple[str, ...]) -> int | None:
    hit = _mention_pattern(words).search(query) if words else None
    return hit.start() if hit else None


@lru_cache(maxsize=256)
def _mention_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """Any of the words (or its plural) as a whole word: one search finds the earliest.
    Compiled once per group; several nodes ask every turn."""
    return re.compile(rf"\b(?:{'|'.join(map(re.escape, words))})s?\b", re.IGNORECASE)

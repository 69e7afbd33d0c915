"""The closed sets of the knowledge base: severities, roles, and the topic hierarchy.

Categories and their sub-categories live in ``data/kb/topics.json`` (a
two-level hierarchy); every page names one pair from it. Which categories a role
may search is the table ``ROLE_CATEGORIES`` below, the one place that decides it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

KB_DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "kb"
TOPICS_FILE = KB_DATA_DIR / "topics.json"


class Severity(StrEnum):
    """NHS-style urgency of a condition page, least to most urgent."""

    SELF_CARE = "self_care"
    URGENT_PRIMARY_CARE = "urgent_primary_care"
    A_AND_E = "a_and_e"

    @property
    def display(self) -> str:
        return SEVERITY_DISPLAY[self]


SEVERITY_DISPLAY: dict[Severity, str] = {
    Severity.SELF_CARE: "Self-care",
    Severity.URGENT_PRIMARY_CARE: "Urgent Primary Care",
    Severity.A_AND_E: "A&E or 999",
}


class Role(StrEnum):
    """Who is asking; a role scopes the categories searched."""

    CLINICIAN = "clinician"
    PATIENT = "patient"
    DIABETES_PATIENT = "diabetes_patient"
    DENTAL_PATIENT = "dental_patient"


ALL_CATEGORIES = None
"""Marker in ``ROLE_CATEGORIES``: the role searches every category."""

ROLE_CATEGORIES: dict[Role, tuple[str, ...] | None] = {
    Role.CLINICIAN: ALL_CATEGORIES,
    Role.PATIENT: ALL_CATEGORIES,
    # Emergencies stay in every scope: a restricted role must still find the 999 pages.
    Role.DIABETES_PATIENT: (
        "diabetes_endocrine",
        "cardiovascular",
        "urinary",
        "eyes_ent",
        "skin",
        "emergencies",
    ),
    Role.DENTAL_PATIENT: ("dental", "infections", "emergencies"),
}


@dataclass(frozen=True)
class Category:
    key: str
    label: str
    subcategories: dict[str, str]


@lru_cache(maxsize=4)
def load_topics(path: Path = TOPICS_FILE) -> dict[str, Category]:
    """Category key → ``Category``, in file order."""
    if not path.is_file():
        raise FileNotFoundError(f"knowledge-base topic hierarchy not found: {path}")
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {
        key: Category(key, entry["label"], dict(entry["subcategories"]))
        for key, entry in raw.items()
    }


def categories_for(role: Role | None, topics: dict[str, Category] | None = None) -> list[str]:
    """The categories a role may search, in hierarchy order; no role means all."""
    topics = topics if topics is not None else load_topics()
    allowed = ROLE_CATEGORIES[role] if role is not None else ALL_CATEGORIES
    if allowed is ALL_CATEGORIES:
        return list(topics)
    return [c for c in topics if c in allowed]

"""Role-scoped categories: one table decides, and every role keeps the emergency pages."""

from __future__ import annotations

import pytest

from docgemma.kb.topics import ROLE_CATEGORIES, Role, categories_for, load_topics


def test_unrestricted_roles_search_every_category() -> None:
    assert categories_for(Role.CLINICIAN) == list(load_topics())
    assert categories_for(None) == categories_for(Role.PATIENT) == list(load_topics())


@pytest.mark.parametrize("role", list(Role))
def test_every_role_names_known_categories_and_keeps_emergencies(role: Role) -> None:
    allowed = ROLE_CATEGORIES[role]
    assert allowed is None or set(allowed) <= set(load_topics())
    assert "emergencies" in categories_for(role)


def test_restricted_roles() -> None:
    assert categories_for(Role.DENTAL_PATIENT) == ["infections", "dental", "emergencies"]
    diabetes = categories_for(Role.DIABETES_PATIENT)
    assert "diabetes_endocrine" in diabetes and "dental" not in diabetes

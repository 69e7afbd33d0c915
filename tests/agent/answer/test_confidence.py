"""Confidence is derived from grounding alone (``answer.confidence``)."""

from __future__ import annotations

import pytest

from docgemma.agent.answer.confidence import Grounding, derive


@pytest.mark.parametrize(
    ("grounding", "failed", "unchecked", "level"),
    [
        (Grounding.CITED, False, False, "high"),
        (Grounding.BY_CODE, False, False, "high"),
        (Grounding.CITED, False, True, "medium"),
        (Grounding.PARTLY, False, False, "medium"),
        (Grounding.CITED, True, False, "low"),
        (Grounding.PARTLY, True, False, "low"),
        (Grounding.NONE, False, False, "low"),
    ],
)
def test_confidence_from_grounding(grounding, failed, unchecked, level) -> None:
    confidence = derive(grounding, source_failed=failed, unchecked=unchecked)
    assert confidence.level == level and confidence.reason

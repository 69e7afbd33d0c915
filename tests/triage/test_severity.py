"""The severities, their order, and the follow-up questions and demographics built on them."""

from __future__ import annotations

from docgemma.kb import Severity as PageSeverity
from docgemma.severity import Severity
from docgemma.triage.demographics import AgeBand, Demographics
from docgemma.triage.follow_ups import follow_up_questions


def test_severities_are_the_knowledge_bases_closed_set():
    assert [s.name for s in Severity] == [s.name for s in PageSeverity]
    assert [s.rank for s in Severity] == [0, 1, 2]


def test_follow_ups_are_three_and_fit_the_severity():
    assert (
        follow_up_questions(Severity.A_AND_E, "Stroke")[1]
        == "What should I tell the 999 call handler?"
    )
    assert len(follow_up_questions(None, None)) == 3
    assert "common cold" in follow_up_questions(Severity.SELF_CARE, "Common cold")[0]


def test_demographics_sentence():
    assert Demographics().describe() == "No patient details given."
    text = Demographics(age_band=AgeBand.OVER_65, pregnant=True).describe()
    assert text == "Patient details: age 65 or over, currently pregnant."

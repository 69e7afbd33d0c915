"""The code-only chart-check score: a risk case counts when a warning or caution names
every chart entry it must; a control counts a false alarm for any such finding, but not
for the note that a drug was not checked."""

from __future__ import annotations

from docgemma.tools.write_review import Finding, WriteReview
from experiments.evaluation.chart_check import ChartRiskCase, load_cases, score


def case(must_name: list[str], case_id: str = "x-01") -> ChartRiskCase:
    return ChartRiskCase(
        id=case_id, patient_id="p-1", drug="d", must_name=must_name, why="", split="dev"
    )


def review(*findings: Finding) -> WriteReview:
    return WriteReview(checked="Checked.", findings=list(findings))


WARFARIN = Finding(kind="interaction", severity="warning", title="d with warfarin: bleeding")
ALLERGY = Finding(kind="allergy", severity="warning", title="Allergy to penicillin recorded")
UNCHECKED = Finding(
    kind="interaction", severity="caution", title="Interactions not checked for dofetilide"
)
KIDNEYS = Finding(kind="renal", severity="info", title="Latest eGFR: 38")


def test_a_risk_is_shown_only_when_every_entry_is_named() -> None:
    assert score(case(["warfarin"]), review(WARFARIN, KIDNEYS))["shown"] is True
    assert score(case(["warfarin", "penicillin"]), review(WARFARIN))["shown"] is False
    assert score(case(["warfarin", "penicillin"]), review(WARFARIN, ALLERGY))["shown"] is True
    assert score(case(["dofetilide"]), review(UNCHECKED))["shown"] is False  # not checked


def test_a_control_alarms_on_a_risk_finding_only() -> None:
    assert score(case([]), review(UNCHECKED, KIDNEYS))["false_alarm"] is False
    assert score(case([]), review(WARFARIN))["false_alarm"] is True


def test_the_case_file_has_risks_and_controls_in_both_splits() -> None:
    cases = load_cases()
    assert len({c.id for c in cases}) == len(cases)
    for split in ("dev", "test"):
        mine = [c for c in cases if c.split == split]
        assert any(c.must_name for c in mine) and any(not c.must_name for c in mine)

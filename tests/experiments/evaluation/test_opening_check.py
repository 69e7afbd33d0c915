"""The code-only can't-miss score: a fired row's conditions count, a missing row counts 0."""

from __future__ import annotations

from experiments.evaluation.cases import EvalCase
from experiments.evaluation.opening_check import false_alarms, opening_scores


def case(query: str, conditions: list[list[str]], case_id: str = "x-01") -> EvalCase:
    return EvalCase(
        id=case_id, category="direct", query=query, exclude_first=conditions, split="dev"
    )


def test_a_fired_row_names_its_conditions_and_an_unmatched_one_does_not() -> None:
    scores = opening_scores(
        [
            case(
                "52M, sudden worst headache of his life while lifting. Differential?",
                [["subarachnoid haemorrhage", "SAH"]],
            ),
            case(
                "Sudden worst headache of his life. Differential?",
                [["subarachnoid haemorrhage"], ["a condition no row names"]],
                "x-02",
            ),
            case("What is the dose of amoxicillin for otitis media?", [], "x-03"),
        ]
    )
    assert list(scores["case_id"]) == ["x-01", "x-02"]  # no conditions: not scored
    assert list(scores["named_first"]) == [1.0, 0.5]
    assert scores["rows_fired"].str.contains("thunderclap_headache").all()


def test_a_row_fired_without_conditions_to_exclude_is_a_false_alarm() -> None:
    alarms = false_alarms(
        [
            case("Gradual tension-type headache for a week, normal exam. Advice?", [], "x-04"),
            case("Sudden worst headache of his life while lifting. What now?", [], "x-05"),
            case("Sudden worst headache of his life. Differential?", [["SAH"]], "x-06"),
        ]
    )
    assert list(alarms["case_id"]) == ["x-05"]  # x-06 lists the condition: not an alarm
    assert alarms["rows_fired"].str.contains("thunderclap_headache").all()


def test_a_sealed_case_is_its_own_group_and_no_case_is_compared_with_itself(
    monkeypatch,
) -> None:
    import experiments.evaluation.opening_check as opening_check

    asked: list[str | None] = []

    def spy(question: str, earlier=(), *, leave_out=None):
        asked.append(leave_out)
        return []

    monkeypatch.setattr(opening_check, "recognise", spy)
    sealed = case("52M, sudden worst headache. Differential?", [["SAH"]], "x-07").model_copy(
        update={"sealed": True}
    )
    scores = opening_scores([sealed])
    assert list(scores["split"]) == ["sealed"]
    assert asked == ["x-07"]

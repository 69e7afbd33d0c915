"""The can't-miss examples: dev cases only, sealed and test ones never; a presentation keeps
the rows its words fire only when they name all its conditions."""

from __future__ import annotations

from experiments.evaluation.cant_miss_examples import labelled
from experiments.evaluation.cases import EvalCase

THUNDERCLAP = "52M, sudden worst headache of his life while lifting. Differential?"


def case(case_id: str, conditions: list[list[str]], split: str = "dev", **extra) -> EvalCase:
    return EvalCase(
        id=case_id,
        category="direct",
        query=THUNDERCLAP,
        exclude_first=conditions,
        split=split,
        **extra,
    )


def test_only_unsealed_dev_cases_become_examples_with_the_rows_that_name_them() -> None:
    examples = labelled(
        [
            case("named", [["subarachnoid haemorrhage", "SAH"]]),
            case("look-alike", []),
            case("not named", [["a condition no row names"]]),
            case("test", [["subarachnoid haemorrhage"]], split="test"),
            case("sealed", [["subarachnoid haemorrhage"]], sealed=True),
        ]
    )
    assert [(i, rows) for i, _, rows in examples] == [
        ("named", "thunderclap_headache"),
        ("look-alike", ""),
    ]

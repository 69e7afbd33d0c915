"""The classifiers suite's combined table: the embedding classifier above the threshold,
the LLM below it, scored case by case as the agent would decide."""

import math

import pandas as pd
import pytest

from experiments.suites.classifiers import combined, report_sections


def _rows(task: str, method: str, outcomes: list[tuple[str, bool, float]]) -> list[dict]:
    return [
        {
            "strategy": f"{method}_{task}",
            "task": task,
            "method": method,
            "case_id": case,
            "correct": ok,
            "confidence": conf,
        }
        for case, ok, conf in outcomes
    ]


@pytest.fixture
def frame() -> pd.DataFrame:
    # the embedding classifier is wrong only where it is unsure; the LLM is wrong elsewhere
    embedding = _rows(
        "intent", "embedding", [("a", True, 0.95), ("b", True, 0.9), ("c", False, 0.55)]
    )
    llm = _rows(
        "intent", "llm", [("a", False, math.nan), ("b", True, math.nan), ("c", True, math.nan)]
    )
    return pd.DataFrame(embedding + llm)


@pytest.mark.parametrize(
    ("threshold", "by_embedding", "accuracy"),
    [(0.0, 1.0, 2 / 3), (0.6, 2 / 3, 1.0), (0.92, 1 / 3, 1.0), (0.99, 0.0, 2 / 3)],
)
def test_each_case_goes_to_the_embedding_above_the_threshold_and_the_llm_below(
    frame, threshold, by_embedding, accuracy
) -> None:
    row = combined(frame, thresholds=[threshold]).iloc[0]
    assert row["by_embedding"] == pytest.approx(by_embedding)
    assert row["accuracy"] == pytest.approx(accuracy)
    assert row["n"] == 3


def test_only_cases_both_answered_count_and_a_task_with_one_method_has_no_row(frame) -> None:
    extra = pd.DataFrame(
        _rows("intent", "embedding", [("d", False, 0.99)])
        + _rows("tool", "embedding", [("t", True, 0.8)])
    )
    table = combined(pd.concat([frame, extra]), thresholds=[0.6])
    assert table["task"].tolist() == ["intent"]
    assert table["n"].tolist() == [3]


def test_the_report_shows_the_combined_table_only_when_both_methods_ran(frame) -> None:
    heading = "LLM below it (as the agent runs)"
    assert heading in "".join(report_sections(frame))
    embedding_only = frame[frame["method"] == "embedding"]
    assert heading not in "".join(report_sections(embedding_only))

"""Runs compared on the cases they share (``experiments.evaluation.compare_runs``)."""

from __future__ import annotations

import pandas as pd

from experiments.evaluation.compare_runs import comparison, main, shared_cases


def rows(ids: list[str], recall: list[float], split: str = "test") -> pd.DataFrame:
    return pd.DataFrame(
        {"case_id": ids, "split": split, "key_fact_recall": recall, "declined": [False] * len(ids)}
    )


def test_only_the_cases_every_run_holds_are_compared() -> None:
    runs = {
        "before": rows(["a", "b", "c"], [1.0, 0.0, 0.5]),
        "after": rows(["b", "c"], [1.0, 1.0]),
    }
    shared = shared_cases(runs)
    assert sorted(shared["before"]["case_id"]) == ["b", "c"]
    table = comparison(shared, ["key_fact_recall"]).set_index("metric")
    assert table.loc["key_fact_recall", "before"] == 0.25
    assert table.loc["key_fact_recall", "after"] == 1.0
    assert table.loc["cases", "after"] == 2


def test_a_split_keeps_its_own_cases(tmp_path, capsys) -> None:
    for name, frame in {
        "one": pd.concat([rows(["a"], [1.0]), rows(["d"], [0.0], "dev")]),
        "two": pd.concat([rows(["a"], [0.0]), rows(["d"], [1.0], "dev")]),
    }.items():
        (tmp_path / name).mkdir()
        frame.to_parquet(tmp_path / name / "results.parquet")
    main([str(tmp_path / "one"), str(tmp_path / "two"), "--split", "dev"])
    out = capsys.readouterr().out
    assert "| metric | one | two |" in out and "| key_fact_recall | 0.00 | 1.00 |" in out

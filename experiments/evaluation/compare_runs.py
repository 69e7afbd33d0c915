"""The same cases across evaluation runs: each headline metric per run, on the cases every
run holds, so a change is measured on one set of cases and not on whichever each run
happened to finish.

``python -m experiments.evaluation.compare_runs FOLDER FOLDER… [--split test]`` prints the
table as markdown; the columns are the run folders' names, in the order given.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from experiments.evaluation.split_report import HEADLINE, metric_mean
from experiments.report import markdown_table

METRICS = (*HEADLINE, "declined")


def shared_cases(
    runs: dict[str, pd.DataFrame], split: str | None = None
) -> dict[str, pd.DataFrame]:
    """Each run's rows of the case ids that every run holds (of ``split`` when given)."""
    kept = {
        name: rows if split is None else rows[rows["split"] == split] for name, rows in runs.items()
    }
    ids = set.intersection(*(set(rows["case_id"]) for rows in kept.values())) if kept else set()
    return {name: rows[rows["case_id"].isin(ids)] for name, rows in kept.items()}


def comparison(runs: dict[str, pd.DataFrame], metrics: Sequence[str] = METRICS) -> pd.DataFrame:
    """One row per metric, one column per run, and the number of cases compared."""
    table = [
        {"metric": m, **{name: metric_mean(rows, m) for name, rows in runs.items()}}
        for m in metrics
    ]
    counts = {name: float(len(rows)) for name, rows in runs.items()}
    return pd.DataFrame([*table, {"metric": "cases", **counts}])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="run folders with results.parquet")
    parser.add_argument("--split", choices=["dev", "test"], default=None)
    args = parser.parse_args(argv)
    runs = {f.name: pd.read_parquet(f / "results.parquet") for f in args.folders}
    print(markdown_table(comparison(shared_cases(runs, args.split))), end="")


if __name__ == "__main__":
    main()

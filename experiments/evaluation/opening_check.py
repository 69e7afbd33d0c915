"""The can't-miss opening scored from code alone, without a model run.

An answer to a presentation that fires rows of the red-flag table opens with the block
code writes from those rows (``docgemma.agent.cant_miss_opening``), so whether the
conditions a case calls for are named first is known before any model call: this scores
that block on every case with ``exclude_first``, in seconds (a dev case is not compared
with itself as a recorded presentation). It is a lower bound of the
end-to-end ``excluded_first`` (a model may still name a condition no row fired), and the
quick check to run before and after a change to the table.

Cases without can't-miss conditions (ordinary questions, and presentations that only look
like emergencies) are scored the other way: any row they fire is a false alarm, an answer
that opens with conditions nobody needed to exclude.

``python -m experiments.evaluation.opening_check [--split dev|test]`` prints one line a case,
then for each group (dev, sealed dev, test) how many are named in full and the mean, and
the false alarms.
"""

from __future__ import annotations

import argparse

import pandas as pd

from docgemma.agent.cant_miss import recognise
from docgemma.agent.cant_miss_opening import cant_miss_block
from experiments.evaluation.cases import EvalCase, load_eval_cases
from experiments.evaluation.scoring import named_first


def opening_scores(cases: list[EvalCase]) -> pd.DataFrame:
    """One row a case with can't-miss conditions: the rows fired and the share named first."""
    rows = []
    for case in cases:
        if not case.exclude_first:
            continue
        found = recognise(case.query, leave_out=case.id)
        rows.append(
            {
                "case_id": case.id,
                "split": _group(case),
                "rows_fired": ", ".join(f["rule_id"] for f in found),
                "named_first": named_first(cant_miss_block(found), case.exclude_first),
            }
        )
    return pd.DataFrame(rows, columns=["case_id", "split", "rows_fired", "named_first"])


def _group(case: EvalCase) -> str:
    return "sealed" if case.sealed else case.split


def false_alarms(cases: list[EvalCase]) -> pd.DataFrame:
    """One row a case without can't-miss conditions that fires a row anyway."""
    rows = [
        {"case_id": case.id, "split": _group(case), "rows_fired": ", ".join(found)}
        for case in cases
        if not case.exclude_first
        for found in [[f["rule_id"] for f in recognise(case.query, leave_out=case.id)]]
        if found
    ]
    return pd.DataFrame(rows, columns=["case_id", "split", "rows_fired"])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "test"], default=None)
    args = parser.parse_args(argv)
    cases = load_eval_cases(split=args.split)
    scores = opening_scores(cases)
    print(scores.to_string(index=False))
    alarms = false_alarms(cases)
    print()
    for group, part in scores.groupby("split", sort=False):
        full = int((part["named_first"] == 1).sum())
        mean = part["named_first"].mean()
        others = [c for c in cases if not c.exclude_first and _group(c) == group]
        mimics = sum(1 for case in others if case.id.startswith("cantmiss"))
        print(
            f"{group}: {len(part)} cases; mean named first {mean:.2f}; all named in {full}; "
            f"false alarms {int((alarms['split'] == group).sum())} of {len(others)} cases "
            f"without ({mimics} look-alikes)"
        )
    if not alarms.empty:
        print(alarms.to_string(index=False))


if __name__ == "__main__":
    main()

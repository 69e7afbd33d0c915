"""Build the recorded presentations that can't-miss resemblance compares a case with.

Every dev case that is not sealed becomes an example: a presentation whose conditions the
table's words name in full keeps the rows they fire that name one of them; a look-alike or
an ordinary question keeps none (a case nearest to it resembles nothing); a presentation
the table does not name in full is left out (its rows would be wrong). Test and sealed
cases are never read here, so both stay held-out figures for resemblance too.

``python -m experiments.evaluation.cant_miss_examples`` rewrites
``data/cant_miss/examples.npz``; run it after the table or the dev cases change (a test
fails until then).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from docgemma.agent.cant_miss import fired_by_words
from docgemma.agent.cant_miss_opening import cant_miss_block
from docgemma.agent.similar_presentations import EXAMPLES_PATH, ROW_SEPARATOR
from docgemma.embed.minilm import get_embedder
from experiments.evaluation.cases import EvalCase, load_eval_cases
from experiments.evaluation.scoring import named_first


def labelled(cases: list[EvalCase]) -> list[tuple[str, str, str]]:
    """``(case id, question, rows)`` for each case that becomes an example, rows joined by
    ``ROW_SEPARATOR`` ("" for a case with nothing to exclude)."""
    examples = []
    for case in cases:
        if case.split != "dev" or case.sealed:
            continue
        if not case.exclude_first:
            examples.append((case.id, case.query, ""))
            continue
        found = fired_by_words(case.query)
        if found and named_first(cant_miss_block(found), case.exclude_first) == 1:
            # only the rows that name one of its conditions: a row fired beside them in
            # passing would spread to every case that resembles this one
            needed = [f for f in found if named_first(cant_miss_block([f]), case.exclude_first)]
            examples.append((case.id, case.query, ROW_SEPARATOR.join(f["rule_id"] for f in needed)))
    return examples


def build(path: Path = EXAMPLES_PATH) -> int:
    """Write the examples file; returns how many examples it holds."""
    examples = labelled(load_eval_cases())
    vectors = get_embedder().embed([question for _, question, _ in examples])
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path,
        ids=np.array([case_id for case_id, _, _ in examples]),
        rows=np.array([rows for _, _, rows in examples]),
        vectors=vectors.astype(np.float16),
    )
    return len(examples)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    count = build()
    print(f"{count} examples written to {EXAMPLES_PATH}")


if __name__ == "__main__":
    main()

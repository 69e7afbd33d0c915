"""How much of the cases' key facts the offline sources could give at best.

``python -m experiments.evaluation.source_ceiling [--run FOLDER]``

Offline, an answer may only say what a source shown to the model says: a condition page,
an abstract of the literature index, a graded interaction of the thesaurus or the chart.
For every case with key facts this reads two bounds, with the evaluation's own phrase
matching:

- ``retrieved``: the share of the key facts that the condition pages and abstracts
  retrieved for the case's message (the first ``TOP`` of each, by the app's own searches)
  hold together, before any relevance check: what an answer grounded in what the searches
  find could reach at best;
- ``best_offline``: the share the one offline page or abstract holding most of them holds,
  retrieved or not: a loose bound (a lone drug name is in some abstract on another topic).

With ``--run``, the table holds that run's key-fact recall of the model's own text beside
them, per split and category. The thesaurus and the charts are left out: their facts reach
an answer through code-written lines as often as through the model.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from docgemma.config import Settings
from docgemma.kb.corpus import load_corpus
from docgemma.kb.store import get_knowledge_base
from docgemma.tools.literature_index import get_index, load_abstracts
from experiments import metrics
from experiments.evaluation.cases import EvalCase, load_eval_cases

TOP = 3
"""Pages and abstracts retrieved per case, as many as an answer shows at most."""


def offline_documents(abstracts: int = 1000) -> list[tuple[str, str]]:
    """(kind, text) of every condition page and every abstract the literature index holds."""
    docs = [
        ("page", f"{p.title}\n" + "\n".join(f"{s.heading}\n{s.text}" for s in p.sections))
        for p in load_corpus()
    ]
    docs += [("abstract", f"{a.title}\n{a.text}") for a in load_abstracts(abstracts)]
    return docs


def best_single_source(facts: Sequence[Sequence[str] | str], docs: Sequence[str]) -> float:
    """The largest share of ``facts`` that one of ``docs`` holds."""
    best = 0.0
    for doc in docs:
        rate = metrics.key_fact_rate(doc, facts)
        if rate > best:
            best = rate
            if best == 1.0:
                break
    return best


def retrieved_text(query: str, settings: Settings) -> str:
    """The first ``TOP`` condition pages and abstracts the app's searches find for ``query``."""
    kb = get_knowledge_base(settings)
    pages = kb.pages
    texts = [
        "\n".join(s.text for s in pages[hit.page_id].sections) for hit in kb.search(query, k=TOP)
    ]
    index = get_index(settings.data_dir, settings.literature_index_size)
    texts += [f"{hit.title}\n{hit.text}" for hit in index.search(query, k=TOP)]
    return "\n".join(texts)


def ceiling_table(
    cases: Sequence[EvalCase], docs: Sequence[tuple[str, str]], settings: Settings
) -> pd.DataFrame:
    """One row per case with key facts: what its retrieved sources hold, and the best
    single page and abstract."""
    pages = [t for k, t in docs if k == "page"]
    abstracts = [t for k, t in docs if k == "abstract"]
    rows = []
    for case in cases:
        if not case.key_facts:
            continue
        best = max(
            best_single_source(case.key_facts, pages),
            best_single_source(case.key_facts, abstracts),
        )
        rows.append(
            {
                "case_id": case.id,
                "split": case.split,
                "category": case.category,
                "retrieved": metrics.key_fact_rate(
                    retrieved_text(case.query, settings), case.key_facts
                ),
                "best_offline": best,
            }
        )
    return pd.DataFrame(rows)


def summary(table: pd.DataFrame, run: pd.DataFrame | None = None) -> pd.DataFrame:
    """Means per split and category, with the run's recall of the model's own text."""
    if run is not None:
        table = table.merge(run[["case_id", "key_fact_recall_model"]], on="case_id", how="left")
    cols = [c for c in ("retrieved", "best_offline", "key_fact_recall_model") if c in table]
    grouped = table.groupby(["split", "category"])[cols].mean().round(2)
    grouped.insert(0, "cases", table.groupby(["split", "category"]).size())
    overall = table.groupby("split")[cols].mean().round(2)
    overall.insert(0, "cases", table.groupby("split").size())
    overall.index = pd.MultiIndex.from_tuples([(s, "all") for s in overall.index])
    return pd.concat([grouped, overall]).sort_index()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, help="an eval run folder to set beside it")
    args = parser.parse_args(argv)
    cases = [c for c in load_eval_cases() if not c.sealed]
    settings = Settings()
    table = ceiling_table(cases, offline_documents(settings.literature_index_size), settings)
    run = pd.read_parquet(args.run / "results.parquet") if args.run else None
    with pd.option_context("display.width", 160, "display.max_rows", 200):
        print(summary(table, run).to_string())
    shares = table["retrieved"]
    print(f"\n{len(table)} cases with key facts; none in what was retrieved: "
          f"{int((shares == 0).sum())}; all in it: {int((shares == 1).sum())}")  # fmt: skip


if __name__ == "__main__":
    main()

"""The bound the offline sources set on key facts (``experiments.evaluation.source_ceiling``)."""

from __future__ import annotations

import pandas as pd

from docgemma.config import Settings
from experiments.evaluation.cases import EvalCase
from experiments.evaluation.source_ceiling import best_single_source, ceiling_table, summary

DOCS = [
    ("page", "Croup\nA barking cough and a hoarse voice in a young child."),
    ("abstract", "Steroids in croup\nA single dose of dexamethasone shortened the illness."),
]


def case(case_id: str, query: str, facts: list[list[str]], split: str = "dev") -> EvalCase:
    return EvalCase(id=case_id, category="direct", query=query, key_facts=facts, split=split)


def test_the_best_single_source_holds_the_largest_share_of_the_facts() -> None:
    texts = [t for _, t in DOCS]
    assert best_single_source([["barking"], ["dexamethasone"]], texts) == 0.5
    assert best_single_source([["barking"], ["hoarse"]], texts) == 1.0
    assert best_single_source([["phrenic"]], texts) == 0.0


def test_the_table_reads_what_the_app_retrieves_and_a_case_without_facts_is_left_out() -> None:
    cases = [
        case("a-01", "What does croup sound like in a toddler?", [["bark"], ["phrenic"]]),
        case("a-02", "Which nerve supplies the diaphragm?", []),
    ]
    table = ceiling_table(cases, DOCS, Settings())
    assert list(table["case_id"]) == ["a-01"]
    row = table.iloc[0]
    assert row["best_offline"] == 0.5
    assert row["retrieved"] == 0.5  # the croup page is found; no source names the nerve


def test_the_summary_sets_a_run_beside_the_bounds_per_split() -> None:
    table = pd.DataFrame(
        [
            {"case_id": "a", "split": "dev", "category": "direct", "retrieved": 0.5,
             "best_offline": 1.0},
            {"case_id": "b", "split": "test", "category": "direct", "retrieved": 0.0,
             "best_offline": 0.5},
        ]
    )  # fmt: skip
    run = pd.DataFrame([{"case_id": "a", "key_fact_recall_model": 0.25}])
    out = summary(table, run)
    assert out.loc[("dev", "all"), "key_fact_recall_model"] == 0.25
    assert out.loc[("test", "direct"), "cases"] == 1

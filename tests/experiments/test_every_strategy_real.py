"""Every strategy of every suite once on the real embedded model: no crash, tidy rows.

One case per strategy and a small free-text cap keep this within a few minutes; the
constrained calls keep their own schema budgets. The model's answers are not judged here,
only that each strategy turns real output into a row carrying its suite's metrics.
"""

from __future__ import annotations

import math

import pytest

from experiments.runner import run_suite
from experiments.suites import SUITES, suite_module

pytestmark = pytest.mark.real_model

TOKEN_CAP = 8
METRICS = {
    "thinking": ["thinking_triggered", "close_emitted", "empty_visible", "reasoning_leaked"],
    "tool_selection": ["tool_exact", "arg_accuracy", "arg_accuracy_given_tool"],
    "field_order": ["arg_accuracy_given_tool", "critical_accuracy", "order_kept"],
    "temperature": ["parse_failure_rate", "modal_answer", "samples"],
    "routing": ["correct", "predicted", "expected"],
    "synthesis": ["key_fact_rate", "source_clean", "word_count", "empty_output"],
    "classifiers": ["correct", "predicted", "expected", "confidence"],
    "knowledge": ["correct", "predicted", "expected", "dataset", "style"],
    "triage": ["correct", "under_triage", "model_correct", "red_flag_a_and_e"],
    "retrieval": ["top1", "top5", "found", "llm_calls", "searches"],
    "entity_hints": ["arg_accuracy_given_tool", "critical_accuracy", "hints", "hinted"],
}
MEASURED = {
    "thinking": "empty_visible",
    "tool_selection": "arg_accuracy",
    "field_order": "critical_accuracy",
    "temperature": "parse_failure_rate",
    "routing": "correct",
    "synthesis": "empty_output",
    "classifiers": "correct",
    "knowledge": "predicted",
    "triage": "correct",
    "retrieval": "llm_calls",
    "entity_hints": "critical_accuracy",
}
"""One metric every trial of the suite must fill (``nan`` only where the strategy cannot)."""


def _filled(value) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


@pytest.mark.parametrize("suite", SUITES)
def test_every_strategy_runs_on_the_real_model(real_llm, suite):
    strategies = list(suite_module(suite).STRATEGIES)
    # two samples still measure agreement and parse failures; the suite's five are for runs
    frame = run_suite(suite, {"n": 1, "token_cap": TOKEN_CAP, "samples": 2}, real_llm)
    assert sorted(frame["strategy"]) == sorted(strategies), "one row per strategy"
    assert set(METRICS[suite]) <= set(frame.columns)
    assert (frame["backend"] == "llamacpp").all() and (frame["latency_s"] > 0).all()
    prompted = frame[frame["calls"] > 0]  # the embedding classifier makes no model call
    assert (prompted["prompt"].str.len() > 0).all()
    assert len(prompted) >= len(frame) - (3 if suite == "classifiers" else 0)
    unmeasured = [
        row.strategy
        for row in frame.itertuples()
        if not _filled(getattr(row, MEASURED[suite]))
        and not (suite == "tool_selection" and row.strategy == "boolean_probing")
    ]
    assert not unmeasured, f"no {MEASURED[suite]} for {unmeasured}"
    free_text = frame[frame["key_order"].isna() & frame["completion_tokens"].gt(0)]
    if suite == "synthesis":
        assert (free_text["completion_tokens"] <= TOKEN_CAP).all()
    if suite == "temperature":
        assert (frame["samples"] == 2).all() and (frame["calls"] == 2).all()

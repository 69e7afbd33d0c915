"""Metrics and intervals on hand-made rows, including the awkward ones."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from experiments import metrics, stats
from experiments.calls import CallRecord
from experiments.trial import trial_row


def test_wilson_interval_known_values():
    low, high = stats.wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-3)
    assert high == pytest.approx(0.9433, abs=1e-3)
    assert stats.wilson_interval(0, 10)[0] == 0.0
    assert stats.wilson_interval(10, 10)[1] == 1.0
    assert all(math.isnan(v) for v in stats.wilson_interval(0, 0))
    with pytest.raises(ValueError):
        stats.wilson_interval(3, 2)


def test_proportion_ignores_missing_values():
    p, low, high, n = stats.proportion([True, False, None, float("nan"), True])
    assert (p, n) == (pytest.approx(2 / 3), 3)
    assert low < p < high


def test_mean_interval_needs_two_values():
    mean, low, high, n = stats.mean_interval([0.5])
    assert mean == 0.5 and n == 1 and math.isnan(low)
    mean, low, high, n = stats.mean_interval([0.0, 1.0, 1.0, 1.0])
    assert mean == 0.75 and 0.0 <= low < 0.75 < high <= 1.0


@pytest.mark.parametrize(
    ("expected", "predicted", "match"),
    [
        ("metformin", "Metformin", True),
        ("metformin", "metformin 500 mg", True),
        ("500 mg", "500mg", False),
        ("Maria Gonzalez", "Gonzalez, Maria", True),
        (["warfarin", "fluconazole"], ["Fluconazole", "warfarin"], True),
        (["warfarin", "fluconazole"], ["warfarin"], False),
        (["warfarin", "fluconazole"], "warfarin, fluconazole", False),
        ("penicillin", None, False),
        ("", "", True),
    ],
)
def test_values_match(expected, predicted, match):
    assert metrics.values_match(expected, predicted) is match


def test_arg_value_accuracy_counts_fields_and_scores_unparsed_as_zero():
    expected = {
        "patient_id": "rbn-318",
        "medication_name": "metformin",
        "dosage": "500 mg",
        "frequency": "twice daily",
    }
    predicted = {
        "patient_id": "rbn-318",
        "medication_name": "Metformin",
        "dosage": "1 g",
        "frequency": None,
    }
    assert metrics.arg_value_accuracy(expected, predicted) == 0.5
    assert metrics.arg_value_accuracy(expected, None) == 0.0
    assert metrics.arg_value_accuracy({}, {}) == 1.0


def test_find_tool_name_takes_the_first_mentioned():
    names = ["check_drug_safety", "check_drug_interactions", "search_patient"]
    assert (
        metrics.find_tool_name("use search_patient, then check_drug_safety", names)
        == "search_patient"
    )
    assert (
        metrics.find_tool_name("the Check Drug Interactions tool", names)
        == "check_drug_interactions"
    )
    assert metrics.find_tool_name("the one that is most appropriate", names) is None


@pytest.mark.parametrize(
    ("emitted", "order", "honoured"),
    [
        (
            ["patient_id", "substance", "reaction"],
            ["patient_id", "substance", "reaction", "severity"],
            True,
        ),
        (["patient_id", "reaction"], ["patient_id", "substance", "reaction", "severity"], True),
        (["severity", "patient_id"], ["patient_id", "substance", "reaction", "severity"], False),
        (["tool_name", "surprise"], ["tool_name"], False),
        ([], ["tool_name"], None),
        (None, ["tool_name"], None),
    ],
)
def test_key_order_honoured(emitted, order, honoured):
    assert metrics.key_order_honoured(emitted, order) is honoured


def test_key_facts_accept_any_phrasing():
    facts = [["INR"], ["bleeding", "bleed"], ["CYP2C9"]]
    text = "Expect a higher INR and a bleeding risk."
    assert metrics.key_facts_found(text, facts) == [True, True, False]
    assert metrics.key_fact_rate(text, facts) == pytest.approx(2 / 3)
    assert metrics.key_fact_rate("", facts) == 0.0
    assert math.isnan(metrics.key_fact_rate("anything", []))


def test_source_clean_and_leaks():
    assert metrics.source_clean("Dofetilide needs ECG monitoring for three days.")
    leaked = metrics.leaked_terms(
        "The check_drug_safety tool returned JSON.", (*metrics.INTERNAL_TERMS, "check_drug_safety")
    )
    assert set(leaked) == {"tool", "json", "check_drug_safety"}
    assert metrics.source_clean("Toolkit-free advice on apis of the lung")  # no whole-word hit


def test_word_count_and_empty_output_ignore_markup():
    assert metrics.word_count("<think>\n</think> Start apixaban.") == 2
    assert metrics.is_empty("  <unused95>  ")
    assert metrics.is_empty("")
    assert metrics.is_empty(None)
    assert not metrics.is_empty("No.")


def test_error_acknowledgement_and_raw_leaks():
    raw = "HTTPStatusError: Server error '503 Service Unavailable' for url 'https://x'"
    assert metrics.error_acknowledged("The literature service is temporarily unavailable.")
    assert not metrics.error_acknowledged("Tranexamic acid reduces bleeding deaths.")
    assert metrics.raw_error_leaked("Got a 503 from the server", raw)
    assert not metrics.raw_error_leaked("The service could not be reached.", raw)


def test_coverage_curve_and_confusion():
    table = metrics.coverage_curve(
        [0.9, 0.6, 0.2, float("nan")], [True, False, True, True], (0.0, 0.5, 0.8)
    )
    assert list(table["coverage"]) == [1.0, pytest.approx(2 / 3), pytest.approx(1 / 3)]
    assert list(table["accuracy"]) == [pytest.approx(2 / 3), 0.5, 1.0]
    matrix = metrics.confusion(["a", "a", "b"], ["a", None, "a"], ["a", "b"])
    assert (
        matrix.loc["a", "a"] == 1 and matrix.loc["a", "unparsed"] == 1 and matrix.loc["b", "a"] == 1
    )


def test_trial_row_flags_wrong_key_order_and_sums_calls():
    good = CallRecord(
        prompt="p1",
        response='{"tool_name": "x"}',
        latency_s=1.0,
        prompt_tokens=10,
        completion_tokens=3,
        key_order=["tool_name"],
        schema_order=["tool_name"],
    )
    swapped = CallRecord(
        prompt="p2",
        response='{"b": 1, "a": 2}',
        latency_s=0.5,
        prompt_tokens=5,
        completion_tokens=4,
        key_order=["b", "a"],
        schema_order=["a", "b"],
    )
    unparsed = CallRecord(
        prompt="p3",
        response="{",
        error="StructuredOutputError: bad",
        key_order=[],
        schema_order=["a"],
    )
    row = trial_row([good, swapped], temperature=0.0, parsed={"x": 1})
    assert row["key_order_honoured"] is False
    assert (row["calls"], row["latency_s"], row["prompt_tokens"]) == (2, 1.5, 15)
    assert row["key_order"] == '["b", "a"]'
    row = trial_row([unparsed], temperature=0.0)
    assert row["key_order_honoured"] is None and row["error"].startswith("StructuredOutputError")
    row = trial_row([CallRecord(prompt="p", response="free text")], temperature=0.5)
    assert row["key_order"] is None and row["key_order_honoured"] is None


def test_report_summary_attaches_seed_figures():
    from experiments.report import key_order_violations, summarize

    frame = pd.DataFrame(
        {
            "suite": "routing",
            "strategy": ["result_quality"] * 3,
            "correct": [True, True, False],
            "expected": ["success_rich"] * 3,
            "parse_ok": [True, True, False],
            "latency_s": [1.0, 2.0, 3.0],
            "key_order_honoured": [True, False, None],
        }
    )
    summary = summarize(frame, ("correct",))
    line = summary.iloc[0]
    assert (line["metric"], line["n"], line["seed_medgemma"]) == ("correct", 3, 0.941)
    assert line["ours"] == pytest.approx(2 / 3) and line["key_order_honoured"] == 0.5
    assert len(key_order_violations(frame)) == 1


@pytest.mark.parametrize(
    ("visible", "thinking", "leaked"),
    [
        ("Dofetilide needs 3 days of ECG monitoring.", "", False),
        ("Wait, the QT interval matters. Dofetilide needs monitoring.", "", True),
        ("Dofetilide needs monitoring.</think>", "", True),
        (
            "The patient needs ECG monitoring for at least three days in hospital.",
            "So the patient needs ECG monitoring for at least three days in hospital, I think.",
            True,
        ),
        (
            "Monitor the ECG for three days.",
            "The label says monitoring for three days in a facility with resuscitation.",
            False,  # a shared phrase shorter than a copied run
        ),
    ],
)
def test_reasoning_leaked_into_the_visible_answer(visible, thinking, leaked) -> None:
    assert metrics.reasoning_leaked(visible, thinking, ("<think>", "</think>")) is leaked

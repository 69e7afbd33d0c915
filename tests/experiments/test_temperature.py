"""The temperature sweep: accuracy and agreement across samples, settings as columns."""

from __future__ import annotations

import itertools

import pytest

from docgemma.llm.scripted import ScriptedBackend
from experiments.runner import run_and_save, run_suite
from experiments.suites import SUITES, suite_module
from experiments.suites.temperature import SAMPLES, TEMPERATURES, agreement
from experiments.trial import PARAMETERS, Strategy


@pytest.mark.parametrize(
    ("answers", "share"),
    [(["a"] * 5, 1.0), (["a", "a", "b", "a", "c"], 0.6), (["a", None, "b", None, None], 0.6)],
)
def test_agreement_is_the_share_of_the_most_common_answer(answers, share):
    assert agreement(answers) == pytest.approx(share)


def _alternating():
    """Tool picks and intents that change from one sample to the next."""
    picks = ["check_drug_safety", "check_drug_safety", "search_patient", "check_drug_safety"]
    tools = itertools.cycle([*picks, "find_clinical_trials"])  # one cycle per case of 5 samples
    intents = itertools.cycle(["TOOL_NEEDED", "DIRECT"])

    def responder(messages, schema):
        if "tool_name" in schema.model_fields:
            return {"tool_name": next(tools)}
        return {"intent": next(intents), "task_summary": "x"}

    return responder


def test_each_case_is_sampled_and_scored_per_task():
    frame = run_suite(
        "temperature",
        {"n": 2, "strategies": ["tool_t0.6", "intent_t0.6"]},
        ScriptedBackend(responder=_alternating()),
    )
    assert len(frame) == 4 and frame["calls"].eq(SAMPLES).all()
    assert frame["samples"].eq(SAMPLES).all() and frame["temperature"].eq(0.6).all()
    tool = frame[frame["task"] == "tool"]
    intent = frame[frame["task"] == "intent"]
    assert tool["tool_agreement"].eq(0.6).all() and tool["intent_accuracy"].isna().all()
    assert intent["intent_agreement"].eq(0.6).all() and intent["tool_accuracy"].isna().all()
    assert frame["parse_failure_rate"].eq(0.0).all()


def test_strategies_cover_both_tasks_at_the_seed_temperatures():
    strategies = suite_module("temperature").STRATEGIES.values()
    for task in ("tool", "intent"):
        temps = sorted(s.params["temperature"] for s in strategies if s.name.startswith(task))
        assert temps == sorted(TEMPERATURES) == [0.0, 0.3, 0.6, 1.0]
    assert all(s.sweep == "temperature" for s in strategies)


def test_settings_are_columns_and_curves_follow_them_not_the_names(tmp_path):
    out = run_and_save(
        "temperature",
        {"n": 1, "strategies": ["tool_t0.0", "tool_t1.0"], "results_dir": tmp_path},
        ScriptedBackend(responder=_alternating()),
    )
    assert set(PARAMETERS) <= set(out.frame.columns) and "sweep" in out.frame
    assert sorted(out.frame["temperature"]) == [0.0, 1.0]
    assert (tmp_path / "temperature").is_dir()
    assert (out.folder / "figures" / "sweep_temperature.html").is_file()


@pytest.mark.parametrize("suite", SUITES)
def test_every_strategy_declares_its_settings(suite):
    for strategy in suite_module(suite).STRATEGIES.values():
        assert isinstance(strategy, Strategy)
        if strategy.sweep:
            assert strategy.params[strategy.sweep] is not None


def test_every_tool_selection_strategy_states_its_examples_and_descriptions():
    """A table filtered on ``shots == 0`` or ``description_style == "full"`` must keep the
    prefix, joint, reasoning and probing strategies, which use that prompt."""
    for strategy in suite_module("tool_selection").STRATEGIES.values():
        assert strategy.params.get("shots") is not None, strategy.name
        assert strategy.params.get("description_style") in {"full", "short", "names"}


def test_a_strategy_cannot_declare_an_unknown_setting_or_sweep_an_unset_one():
    with pytest.raises(ValueError, match="unknown strategy parameters"):
        Strategy("x", "x", lambda *a: {}, params={"temprature": 0.3})
    with pytest.raises(ValueError, match="does not set it"):
        Strategy("x", "x", lambda *a: {}, params={}, sweep="temperature")


def test_runs_are_saved_as_dataset_folders(tmp_path):
    from datasets import load_from_disk

    out = run_and_save(
        "temperature",
        {"n": 1, "strategies": ["intent_t0.3"], "results_dir": tmp_path},
        ScriptedBackend(responder=_alternating()),
    )
    results = load_from_disk(str(out.folder / "dataset"))
    cases = load_from_disk(str(out.folder / "cases"))
    assert results.num_rows == 1 and results[0]["strategy"] == "intent_t0.3"
    assert results[0]["temperature"] == 0.3 and results[0]["samples"] == SAMPLES
    assert cases.num_rows > 1 and "query" in cases.column_names

"""The triage suite on the scripted model and the real knowledge base: its metrics are right."""

from __future__ import annotations

import json
import time

import pytest

from docgemma.llm.scripted import ScriptedBackend
from docgemma.triage.schemas import RouteDecision
from experiments.runner import run_suite
from experiments.suites.triage import STRATEGIES, VIGNETTES, load, summary
from experiments.trial import RunConfig


def always_self_care(messages, schema):
    """A model that calls everything Self-care (the worst case for under-triage)."""
    if schema is RouteDecision:
        return {"action": "retrieve", "search_query": ""}
    if schema is not None and schema.__name__ == "TriagePrediction":
        return {"condition": "inconclusive", "severity": "Self-care"}
    if schema is not None:
        return {}
    return "You will be fine. Rest at home."


def test_the_vignettes_are_many_varied_and_flag_what_the_rules_catch():
    from docgemma.triage.red_flags import check

    cases = load(RunConfig(suite="triage"))
    assert len(cases) >= 40
    severities = {c.expected.value for c in cases}
    assert severities == {"Self-care", "Urgent Primary Care", "A&E"}
    assert sum(c.red_flag for c in cases) >= 12
    for case in cases:
        assert bool(check(case.text, case.demographics)) is case.red_flag, case.id
    assert all(json.loads(line)["text"] for line in VIGNETTES.read_text().splitlines())


def test_strategies_follow_seeds_method():
    forcing = ["forcing_off", "min_wait_0", "min_wait_1", "min_wait_2"]
    assert list(STRATEGIES) == [*forcing, *(f"full_{name}" for name in forcing)]


@pytest.mark.usefixtures("indexed_settings")
def test_the_two_contexts_run_side_by_side_in_one_command():
    frame = run_suite(
        "triage",
        {"n": 3, "strategies": ["min_wait_1", "full_min_wait_1"]},
        ScriptedBackend(responder=always_self_care),
    )
    contexts = frame.groupby("strategy")["context"].agg(set).to_dict()
    assert contexts == {"min_wait_1": {"compact"}, "full_min_wait_1": {"full"}}
    assert (frame.groupby("strategy").size() == 3).all()


@pytest.mark.usefixtures("indexed_settings")
def test_rules_hold_red_flags_at_a_and_e_and_under_triage_is_counted():
    frame = run_suite(
        "triage",
        {"n": 9, "strategies": ["forcing_off", "min_wait_1"]},
        ScriptedBackend(responder=always_self_care),
    )
    assert len(frame) == 18 and set(frame["model_predicted"]) == {"Self-care"}
    red = frame[frame["red_flag_a_and_e"].notna()]
    assert len(red) and red["red_flag_a_and_e"].all() and (red["predicted"] == "A&E").all()
    urgent = frame[(frame["expected"] == "Urgent Primary Care") & ~frame["red_flag_case"]]
    assert len(urgent) and urgent["under_triage"].all() and not urgent["correct"].any()
    calm = frame[frame["expected"] == "Self-care"]
    assert calm["correct"].all() and not calm["under_triage"].any()
    table = summary(frame).set_index("strategy")
    assert table.loc["forcing_off", "red_flag_a_and_e"] == 1.0
    assert table.loc["forcing_off", "model_under_triage"] > table.loc["forcing_off", "under_triage"]
    reasoning = frame[frame["strategy"] == "min_wait_1"]["reasoning"]
    assert reasoning.str.contains("Wait").all()


@pytest.mark.usefixtures("indexed_settings")
def test_a_trials_latency_is_its_own_time_not_its_wait_for_the_model():
    """All trials start at once and queue for the one model; a latency that counted the
    queue grew with each trial (the first run on the default profile reported a 739 s median)."""

    def slow(messages, schema):
        time.sleep(0.05)
        return always_self_care(messages, schema)

    frame = run_suite(
        "triage",
        {"n": 6, "strategies": ["forcing_off"], "concurrency": 1},
        ScriptedBackend(responder=slow),
    )
    latency = frame["latency_s"]
    assert len(latency) == 6 and latency.min() >= 0.05
    assert latency.max() < 3 * latency.min(), list(latency)

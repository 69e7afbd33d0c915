"""The hand-written experiment cases speak of the agent as it is: tool labels and names the
registry has, arguments its schemas accept, enough cases a strategy for a measurement."""

from __future__ import annotations

import pytest

from docgemma.tools.registry import build_registry
from experiments.cases import CASE_FILES, load_cases

REGISTRY = build_registry()
LABELS = set(REGISTRY.labels().values())
MIN_CASES = 30
"""Trials a strategy needs before its rate is a measurement (the studies run one a case)."""


@pytest.mark.parametrize("name", sorted(CASE_FILES))
def test_every_tool_label_is_the_registrys(name: str) -> None:
    labels = {getattr(c, "tool_label", None) for c in load_cases(name)} - {None}
    assert labels <= LABELS, labels - LABELS


@pytest.mark.parametrize("name", ["tool_selection", "field_order"])
def test_expected_tools_exist_and_their_arguments_validate(name: str) -> None:
    for case in load_cases(name):
        assert case.expected_tool in REGISTRY, case.id
        assert set(case.acceptable_tools) <= {s.name for s in REGISTRY}, case.id
        args = REGISTRY[case.expected_tool].args
        assert set(case.expected_args) <= set(args.model_fields), case.id


def test_each_routing_task_has_enough_cases() -> None:
    tasks: dict[str, int] = {}
    for case in load_cases("routing"):
        tasks[case.task] = tasks.get(case.task, 0) + 1
    assert tasks and min(tasks.values()) >= MIN_CASES, tasks


@pytest.mark.parametrize("name", ["tool_selection", "thinking", "intent"])
def test_single_case_studies_have_enough_cases(name: str) -> None:
    assert len(load_cases(name)) >= MIN_CASES


def test_synthesis_has_enough_answer_and_error_cases() -> None:
    cases = load_cases("synthesis")
    assert sum(not c.is_error for c in cases) >= MIN_CASES
    assert sum(c.is_error for c in cases) >= MIN_CASES

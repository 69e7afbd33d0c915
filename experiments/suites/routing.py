"""Suite 3 — routing: what the model can classify, what code must decide.

Strategies: result-quality classification (five classes, confusion matrix); next-action
routing at T=0.0 and T=0.3; a full plan in five nullable slots against reactive
step-by-step selection; sufficiency judgement; error-recovery strategy. Each strategy
runs on the cases of its own task in ``routing.jsonl``.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from docgemma.agent.schemas import ResultAssessment
from docgemma.labels import RESULT_QUALITIES
from docgemma.llm.types import messages
from experiments import metrics, prompt_variants
from experiments.calls import Caller
from experiments.cases import RoutingCase
from experiments.figures import heatmap
from experiments.report import markdown_table
from experiments.schemas import (
    NextAction,
    RecoveryChoice,
    Sufficiency,
    plan_schema,
    reactive_schema,
)
from experiments.trial import Context, Strategy, trial_row

SUITE = "routing"
CASES = "routing"
PRIMARY_METRICS = ("correct", "step_accuracy")
DERIVED = {
    "correct_on_sufficient": ("True",),
    "correct_on_retry": ("retry_same", "retry_different_args"),
    "correct_on_ask_user": ("ask_user",),
    "correct_on_skip": ("skip",),
}
"""Accuracy on the cases whose expected answer is one of these; the design studies split them so."""


def _task(name: str):
    return lambda case: case.task == name


def _row(
    calls, *, temperature: float, predicted: Any, expected: Any, **extra: Any
) -> dict[str, Any]:
    return trial_row(
        calls,
        temperature=temperature,
        parsed=calls[-1].parsed,
        parse_ok=all(c.ok for c in calls),
        predicted=None if predicted is None else str(predicted),
        expected=str(expected),
        correct=predicted == expected,
        **extra,
    )


async def result_quality(case: RoutingCase, caller: Caller, ctx: Context) -> dict[str, Any]:
    prompt = prompt_variants.RESULT_CLASSIFY.substitute(
        query=case.query, tool_label=case.tool_label, result=case.result
    )
    call = await caller.structured(messages(("user", prompt)), ResultAssessment)
    predicted = call.parsed["quality"] if call.parsed else None
    return _row([call], temperature=0.0, predicted=predicted, expected=case.expected_quality)


async def next_action(
    case: RoutingCase, caller: Caller, ctx: Context, *, temperature: float
) -> dict[str, Any]:
    prompt = prompt_variants.NEXT_ACTION.substitute(
        query=case.query, history=case.history, last_quality=case.last_quality
    )
    call = await caller.structured(messages(("user", prompt)), NextAction, temperature=temperature)
    predicted = call.parsed["action"] if call.parsed else None
    return _row([call], temperature=temperature, predicted=predicted, expected=case.expected_action)


async def full_plan(case: RoutingCase, caller: Caller, ctx: Context) -> dict[str, Any]:
    names = tuple(ctx.registry.names)
    prompt = prompt_variants.FULL_PLAN.substitute(
        tool_list=ctx.registry.describe("full"), query=case.query
    )
    call = await caller.structured(messages(("user", prompt)), plan_schema(names))
    plan = [step for step in call.parsed.values() if step] if call.parsed else None
    return _row(
        [call],
        temperature=0.0,
        predicted=json.dumps(plan) if plan is not None else None,
        expected=json.dumps(case.plan),
        slots_filled=len(plan) if plan is not None else None,
        step_accuracy=_prefix_accuracy(plan or [], case.plan),
    )


def _prefix_accuracy(predicted: list[str], expected: list[str]) -> float:
    """Share of expected steps that the plan has at the same position."""
    return sum(p == e for p, e in zip(predicted, expected, strict=False)) / len(expected)


async def reactive(case: RoutingCase, caller: Caller, ctx: Context) -> dict[str, Any]:
    """One call per step; the true earlier steps and their results are given (teacher forcing)."""
    schema = reactive_schema(tuple(ctx.registry.names))
    tool_list = ctx.registry.describe("full")
    calls, chosen = [], []
    expected = [*case.plan, "done"]
    for step in range(len(expected)):
        history = "\n".join(case.step_results[:step]) or "(none yet)"
        prompt = prompt_variants.REACTIVE_STEP.substitute(
            tool_list=tool_list, query=case.query, history=history
        )
        call = await caller.structured(messages(("user", prompt)), schema)
        calls.append(call)
        chosen.append(call.parsed["tool_name"] if call.parsed else None)
    hits = sum(c == w for c, w in zip(chosen, expected, strict=True))
    return _row(
        calls,
        temperature=0.0,
        predicted=json.dumps(chosen),
        expected=json.dumps(expected),
        step_accuracy=hits / len(expected),
    )


async def sufficiency(case: RoutingCase, caller: Caller, ctx: Context) -> dict[str, Any]:
    prompt = prompt_variants.SUFFICIENCY.substitute(query=case.query, history=case.history)
    call = await caller.structured(messages(("user", prompt)), Sufficiency)
    predicted = call.parsed["sufficient"] if call.parsed else None
    return _row([call], temperature=0.0, predicted=predicted, expected=case.expected_sufficient)


async def error_recovery(case: RoutingCase, caller: Caller, ctx: Context) -> dict[str, Any]:
    prompt = prompt_variants.ERROR_RECOVERY.substitute(
        query=case.query,
        tool_label=case.tool_label,
        args=json.dumps(case.args),
        attempts=case.attempts,
        error=case.error,
    )
    call = await caller.structured(messages(("user", prompt)), RecoveryChoice)
    predicted = call.parsed["strategy"] if call.parsed else None
    return _row([call], temperature=0.0, predicted=predicted, expected=case.expected_strategy)


def stratum(case: RoutingCase) -> str:
    """The expected answer of the case's task (plans by length), for spreading a small ``--n``."""
    answers = (
        case.expected_quality,
        case.expected_action,
        case.expected_strategy,
        case.expected_sufficient,
    )
    return json.dumps([*answers, len(case.plan)])


STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in [
        Strategy(
            "result_quality",
            "classify a tool result into five quality classes",
            result_quality,
            applies=_task("result_quality"),
        ),
        Strategy(
            "next_action_t0.0",
            "model picks the next action, T=0.0",
            partial(next_action, temperature=0.0),
            params={"temperature": 0.0},
            sweep="temperature",
            applies=_task("next_action"),
        ),
        Strategy(
            "next_action_t0.3",
            "model picks the next action, T=0.3",
            partial(next_action, temperature=0.3),
            params={"temperature": 0.3},
            sweep="temperature",
            applies=_task("next_action"),
        ),
        Strategy(
            "full_plan",
            "whole plan up front in five nullable slots",
            full_plan,
            applies=_task("plan"),
        ),
        Strategy(
            "reactive",
            "one tool at a time given earlier results (or done)",
            reactive,
            applies=_task("plan"),
        ),
        Strategy(
            "sufficiency",
            "is the gathered information enough to answer?",
            sufficiency,
            applies=_task("sufficiency"),
        ),
        Strategy(
            "error_recovery",
            "retry same / different args / ask user / skip after an error",
            error_recovery,
            applies=_task("error_recovery"),
        ),
    ]
}


def confusion_matrix(frame: pd.DataFrame) -> pd.DataFrame:
    """Result-quality confusion matrix of a run (expected classes as rows)."""
    rows = frame[frame["strategy"] == "result_quality"]
    predicted = [p if isinstance(p, str) else None for p in rows["predicted"]]
    return metrics.confusion(list(rows["expected"]), predicted, RESULT_QUALITIES)


def _classified(frame: pd.DataFrame) -> bool:
    return bool((frame["strategy"] == "result_quality").any())


def report_sections(frame: pd.DataFrame) -> list[str]:
    if not _classified(frame):
        return []
    return [
        "\n## Result quality confusion matrix (rows: expected)\n",
        markdown_table(confusion_matrix(frame).reset_index()),
    ]


def figures(frame: pd.DataFrame) -> dict[str, go.Figure]:
    if not _classified(frame):
        return {}
    return {"confusion": heatmap(confusion_matrix(frame), "result quality: confusion matrix")}

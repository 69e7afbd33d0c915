"""Suite 5 — ours: LLM classification against the embedding classifier, on the same cases.

For intent, tool and result-quality classification the LLM answers under its
constrained schema (seed prompts) and the embedding classifier of
``docgemma.routing`` answers from sentence embeddings. The embedding classifier's
confidence is what the agent compares with ``classifier_threshold``; the report's
accuracy/coverage table shows what each threshold would buy, and the combined table what
the agent would score with the LLM deciding the cases below it. A case whose text is
also one of the classifier's training examples is flagged (``in_training``).
"""

from __future__ import annotations

import asyncio
import math
from functools import partial
from itertools import zip_longest
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from docgemma.agent.schemas import IntentClassification, ResultAssessment
from docgemma.llm.types import messages
from experiments import metrics, prompt_variants
from experiments.calls import Caller
from experiments.cases import IntentCase, RoutingCase, ToolCase, load_cases
from experiments.report import markdown_table
from experiments.trial import Context, RunConfig, Strategy, trial_row

SUITE = "classifiers"
PRIMARY_METRICS = ("correct",)
THRESHOLDS = (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9)
TASK_OF = {IntentCase: "intent", ToolCase: "tool", RoutingCase: "result"}


def load(config: RunConfig) -> list[Any]:
    """The suite's own case files plus the end-to-end evaluation's questions (fresh cases:
    never routing training examples), interleaved so a small ``--n`` takes from both."""
    from experiments.evaluation.cases import routing_cases

    routing = [c for c in load_cases("routing", config.data_dir) if c.task == "result_quality"]
    own = [*load_cases("intent", config.data_dir), *load_cases("tool_selection", config.data_dir)]
    fresh = routing_cases() if config.data_dir is None else []
    mixed = [c for pair in zip_longest(own, fresh) for c in pair if c is not None]
    return [*mixed, *routing]


def _text(case: Any) -> str:
    from docgemma.routing import query_text, result_text

    return (
        result_text(case.query, case.result)
        if isinstance(case, RoutingCase)
        else query_text(case.query)
    )


def _expected(case: Any) -> str:
    if isinstance(case, IntentCase):
        return case.expected_intent
    if isinstance(case, ToolCase):
        return case.expected_tool
    return case.expected_quality


def _row(
    case: Any,
    ctx: Context,
    calls,
    *,
    predicted: str | None,
    confidence: float,
    latency: float,
    task: str,
    method: str,
) -> dict[str, Any]:
    row = trial_row(
        calls,
        temperature=0.0,
        parsed={"label": predicted},
        parse_ok=predicted is not None,
        task=task,
        method=method,
        predicted=predicted,
        expected=_expected(case),
        correct=predicted == _expected(case),
        confidence=confidence,
        in_training=_text(case).strip().lower() in ctx.extras["training_texts"][task],
    )
    row["latency_s"] = latency
    return row


async def llm(case: Any, caller: Caller, ctx: Context, *, task: str) -> dict[str, Any]:
    if task == "intent":
        call = await caller.structured(
            messages(("system", prompt_variants.INTENT_SYSTEM.render()), ("user", case.query)),
            IntentClassification,
        )
        predicted = call.parsed["intent"] if call.parsed else None
    elif task == "tool":
        system = prompt_variants.TOOL_SELECT_SYSTEM.substitute(
            tool_list=ctx.registry.describe("full"), examples=""
        )
        call = await caller.structured(
            messages(("system", system), ("user", case.query)), ctx.registry.selection_model()
        )
        predicted = call.parsed["tool_name"] if call.parsed else None
    else:
        prompt = prompt_variants.RESULT_CLASSIFY.substitute(
            query=case.query, tool_label=case.tool_label, result=case.result
        )
        call = await caller.structured(messages(("user", prompt)), ResultAssessment)
        predicted = call.parsed["quality"] if call.parsed else None
    return _row(
        case,
        ctx,
        [call],
        predicted=predicted,
        confidence=math.nan,
        latency=call.latency_s,
        task=task,
        method="llm",
    )


async def embedding(case: Any, caller: Caller, ctx: Context, *, task: str) -> dict[str, Any]:
    classifier = ctx.extras["classifiers"][task]

    prediction, latency = await caller.run_exclusive(
        asyncio.to_thread(classifier.predict, _text(case))
    )
    return _row(
        case,
        ctx,
        [],
        predicted=prediction.label,
        confidence=prediction.confidence,
        latency=latency,
        task=task,
        method="embedding",
    )


async def prepare(ctx: Context, caller: Caller) -> None:
    """Train (or fetch) the embedding classifiers once, outside the timed trials."""
    from docgemma.routing import load_classifier
    from docgemma.routing.examples import load_examples

    wanted = {
        s.split("_", 1)[1]
        for s in (ctx.config.strategies or STRATEGIES)
        if s.startswith("embedding_")
    }
    ctx.extras["classifiers"] = {
        task: await asyncio.to_thread(load_classifier, task) for task in wanted
    }
    ctx.extras["training_texts"] = {
        task: {e.text.strip().lower() for e in load_examples(task)}
        for task in ("intent", "tool", "result")
    }


def _on(task: str):
    return lambda case: TASK_OF[type(case)] == task


def stratum(case: Any) -> str:
    return _expected(case)


STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in [
        strategy
        for task in ("intent", "tool", "result")
        for strategy in (
            Strategy(
                f"llm_{task}",
                f"{task} by the LLM under its constrained schema, T=0",
                partial(llm, task=task),
                applies=_on(task),
            ),
            Strategy(
                f"embedding_{task}",
                f"{task} by the embedding classifier (docgemma.routing)",
                partial(embedding, task=task),
                applies=_on(task),
            ),
        )
    ]
}


def calibration(frame: pd.DataFrame, thresholds=THRESHOLDS) -> pd.DataFrame:
    """Accuracy and coverage of each embedding strategy when acting only above a threshold."""
    tables = []
    for strategy, rows in frame[frame["method"] == "embedding"].groupby("strategy"):
        table = metrics.coverage_curve(list(rows["confidence"]), list(rows["correct"]), thresholds)
        table.insert(0, "strategy", strategy)
        tables.append(table)
    return (
        pd.concat(tables, ignore_index=True)
        if tables
        else pd.DataFrame(columns=["strategy", "threshold", "coverage", "accuracy", "n"])
    )


def combined(frame: pd.DataFrame, thresholds=THRESHOLDS) -> pd.DataFrame:
    """What the agent does with ``classifier_threshold``: the embedding classifier decides
    at or above the threshold and the LLM below it. Per task and threshold, over the cases
    both answered: the share the embedding decided and the accuracy of the two together."""
    rows = []
    for task, part in frame.groupby("task"):
        by_embedding = part[part["method"] == "embedding"].set_index("case_id")
        by_llm = part[part["method"] == "llm"].set_index("case_id")
        both = by_embedding.index.intersection(by_llm.index)
        if both.empty:
            continue
        confidence = by_embedding.loc[both, "confidence"]
        for threshold in thresholds:
            decided = confidence >= threshold
            correct = by_embedding.loc[both, "correct"].where(decided, by_llm.loc[both, "correct"])
            rows.append(
                {
                    "task": task,
                    "threshold": threshold,
                    "by_embedding": float(decided.mean()),
                    "accuracy": float(correct.astype(bool).mean()),
                    "n": len(both),
                }
            )
    return pd.DataFrame(rows, columns=["task", "threshold", "by_embedding", "accuracy", "n"])


def report_sections(frame: pd.DataFrame) -> list[str]:
    if "method" not in frame:
        return []
    sections = [
        "\n## Embedding classifier: accuracy and coverage by confidence threshold\n",
        markdown_table(calibration(frame)),
    ]
    together = combined(frame)
    if not together.empty:
        sections += [
            "\n## Embedding classifier above the threshold, LLM below it (as the agent runs)\n",
            markdown_table(together),
        ]
    return sections


def figures(frame: pd.DataFrame) -> dict[str, go.Figure]:
    """Accuracy and coverage of each embedding strategy against the confidence threshold."""
    table = calibration(frame) if "method" in frame else pd.DataFrame()
    if table.empty:
        return {}
    fig = go.Figure()
    for strategy, rows in table.groupby("strategy"):
        fig.add_scatter(name=f"{strategy} accuracy", x=rows["threshold"], y=rows["accuracy"])
        fig.add_scatter(
            name=f"{strategy} coverage",
            x=rows["threshold"],
            y=rows["coverage"],
            line={"dash": "dot"},
        )
    for task, rows in combined(frame).groupby("task"):
        fig.add_scatter(
            name=f"{task}: embedding above, LLM below",
            x=rows["threshold"],
            y=rows["accuracy"],
            line={"dash": "dash"},
        )
    fig.update_layout(
        title="embedding classifier: accuracy and coverage by threshold",
        xaxis={"title": "confidence threshold"},
    )
    return {"calibration": fig}

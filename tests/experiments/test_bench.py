"""The per-path benchmark: its tables from measured runs, and the quick form on the real model."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from docgemma.agent.outcome import ToolCallRecord, TurnResult
from docgemma.events import LLMUsage, NodeStarted, ToolFinished
from experiments.bench import PATHS, case_of, node_table, path_table, run_bench, run_row
from experiments.evaluation.cases import load_eval_cases
from experiments.evaluation.harness import TurnRecord


def record(wall: float) -> TurnRecord:
    events = [
        NodeStarted(node="input_assembly"),
        LLMUsage(node="intent_classify", purpose="intent", prompt_tokens=120, latency_s=0.5),
        ToolFinished(
            node="tool_execute", tool="check_drug_safety", tool_label="x", ok=True, duration_s=0.2
        ),
        LLMUsage(node="synthesize", purpose="synthesize", completion_tokens=40, latency_s=1.0),
    ]
    result = TurnResult(
        final_response="ok", tool_calls=[ToolCallRecord(tool="check_drug_safety", tool_label="x")]
    )
    return TurnRecord(
        result=result,
        events=events,
        wall_s=wall,
        first_event_s=0.01,
        synthesis_start_s=1.0,
        first_token_s=1.4,
    )


def test_time_is_split_into_model_tools_embedding_and_orchestration():
    row = run_row("single_tool", 0, record(2.0), embedding_s=0.05)
    assert row["model_s"] == 1.5 and row["tool_s"] == 0.2
    assert row["embedding_ms"] == pytest.approx(50.0)
    assert row["orchestration_ms"] == pytest.approx(250.0)
    assert row["first_token_after_synthesis_s"] == pytest.approx(0.4)
    assert row["first_event_ms"] == pytest.approx(10.0) and row["tools"] == "check_drug_safety"
    assert [n["purpose"] for n in json.loads(row["nodes"])] == ["intent", "synthesize"]


def test_tables_give_median_p95_and_calls_per_node():
    frame = pd.DataFrame([run_row("direct", i, record(1.8 + i / 10)) for i in range(10)])
    table = path_table(frame).set_index("path")
    assert table.loc["direct", "runs"] == 10
    assert table.loc["direct", "wall_s median"] == pytest.approx(2.25)
    assert table.loc["direct", "wall_s p95"] == pytest.approx(2.655)
    nodes = node_table(frame).set_index("purpose")
    assert nodes.loc["intent", "calls per run"] == 1.0
    assert nodes.loc["intent", "prompt_tokens"] == 120


def test_every_path_is_an_evaluation_case():
    ids = {c.id for c in load_eval_cases()}
    assert {case for cases in PATHS.values() for case in cases} <= ids


@pytest.mark.parametrize("path", PATHS)
def test_no_run_asks_the_question_of_the_run_before(path):
    """A repeated prompt is served from llama.cpp's cache: the bench would time no prefill."""
    order = [case_of(path, run) for run in range(10)]
    assert all(a != b for a, b in zip(order, order[1:], strict=False))
    assert set(order) == set(PATHS[path])


@pytest.mark.real_model
def test_quick_bench_on_the_tiny_model(tmp_path, settings):
    """The CI form: one timed run per path and no warm-up, written as a full run folder."""
    folder = run_bench(None, 1, True, tmp_path)
    runs = pd.read_parquet(folder / "runs.parquet")
    assert sorted(runs["path"]) == sorted(PATHS)
    assert (runs["wall_s"] > 0).all() and (runs["model_calls"] >= 1).all()
    assert (runs["first_event_ms"] < runs["wall_s"] * 1000).all()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["model"] == "gemma3-270m" and manifest["runs_per_path"] == 1
    assert manifest["warm_up"] is False and len(runs) == len(PATHS)
    assert manifest["git_revision"] and manifest["paths"]["direct"] == list(PATHS["direct"])
    assert manifest["event_loop"] == "uvloop"  # the app's server loop (tests/test_event_loop.py)
    summary = (folder / "summary.md").read_text()
    assert "## Paths" in summary and "error_retry" in summary and "without warm-up" in summary

"""What a suite's run folder must hold after a run on the real embedded model.

The suite notebooks run each suite through ``run_and_save`` on the real model
(``test_notebooks.py``); these checks read the folder a notebook wrote: tidy rows, the
manifest, the report beside the design studies' figures, figures on disk, and what each
suite's own strategies must have measured. The tiny model's answers are poor; only the
form of its output is held here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from docgemma.tools.registry import build_registry
from experiments.cases import as_dataset
from experiments.run_folder import load_run

COMMON = [
    "suite",
    "strategy",
    "case_id",
    "model",
    "backend",
    "temperature",
    "prompt",
    "response",
    "parsed_output",
    "parse_ok",
    "latency_s",
    "prompt_tokens",
    "completion_tokens",
    "key_order",
    "key_order_honoured",
]


def check_folder(folder: Path, token_cap: int | None) -> None:
    """The folder's common form, then the checks of its suite."""
    frame, manifest = load_run(folder)
    suite, strategies = manifest["suite"], manifest["config"]["strategies"]
    assert set(COMMON) <= set(frame.columns)
    assert set(frame["strategy"]) == set(strategies)
    assert (frame["suite"] == suite).all() and (frame["backend"] == "llamacpp").all()
    assert (frame["latency_s"] > 0).all()
    assert (folder / "results.csv").is_file()
    assert as_dataset(folder / "results.parquet").num_rows == len(frame)
    assert manifest["model"] == frame["model"].iloc[0]
    assert manifest["packages"]["llama-cpp-python"] and manifest["seed"] == 0
    report = (folder / "report.md").read_text()
    assert "| Strategy | Metric | Seed (MedGemma 1.5 4B) |" in report
    for name, path in manifest["figures"].items():
        assert (folder / path).is_file(), name
    SUITE_CHECKS[suite](frame, manifest, report, token_cap)


def _tool_selection(frame: pd.DataFrame, manifest: dict, report: str, cap: int | None) -> None:
    assert {"tool_exact", "tool_acceptable", "arg_accuracy"} <= set(frame.columns)
    # grammar-constrained output always parses; keys come back in schema order on llama.cpp
    assert frame["parse_ok"].all()
    assert frame["key_order_honoured"].dropna().astype(bool).all()
    tools = set(build_registry().names)
    assert all(json.loads(p)["tool_name"] in tools for p in frame["parsed_output"])
    assert "0.95" in report  # the design study's full_desc figure sits beside ours


def _thinking(frame: pd.DataFrame, manifest: dict, report: str, cap: int | None) -> None:
    wanted = ["thinking_triggered", "close_emitted", "thinking_words", "visible_words"]
    assert {*wanted, "empty_visible"} <= set(frame.columns)
    forced = frame[frame["strategy"] == "min_wait_1"]
    assert len(forced), "the notebook runs the forced strategy"
    assert (forced["thinking_tokens"] > 0).all()
    assert ((forced["waits_inserted"] == 1) | forced["forced_close"].astype(bool)).all()
    assert "sweep_min_wait" in manifest["figures"]


def _routing(frame: pd.DataFrame, manifest: dict, report: str, cap: int | None) -> None:
    assert {"correct", "predicted", "expected"} <= set(frame.columns)
    assert frame["parse_ok"].all()
    recovery = frame[frame["strategy"] == "error_recovery"]
    assert set(recovery["predicted"]) <= {"retry_same", "retry_different_args", "ask_user", "skip"}


def _synthesis(frame: pd.DataFrame, manifest: dict, report: str, cap: int | None) -> None:
    assert {"key_fact_rate", "source_clean", "word_count", "empty_output"} <= set(frame.columns)
    if cap is not None:
        assert (frame["completion_tokens"] <= cap).all()
    errors = frame[frame["strategy"] == "errors_formatted"]
    assert errors["case_id"].str.startswith("se").all()


def _classifiers(frame: pd.DataFrame, manifest: dict, report: str, cap: int | None) -> None:
    assert {"correct", "confidence", "in_training"} <= set(frame.columns)
    assert frame[frame["method"] == "embedding"]["confidence"].between(0, 1).all()
    assert frame[frame["method"] == "llm"]["confidence"].isna().all()
    assert "accuracy and coverage by confidence threshold" in report
    assert "LLM below it (as the agent runs)" in report


SUITE_CHECKS = {
    "tool_selection": _tool_selection,
    "thinking": _thinking,
    "routing": _routing,
    "synthesis": _synthesis,
    "classifiers": _classifiers,
}
"""Per suite: what its notebook's strategies must have measured."""

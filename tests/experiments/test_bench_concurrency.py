"""The concurrency benchmark's rows, table, figure and run folder, from made-up sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from docgemma.agent.outcome import TurnResult
from docgemma.config import Settings
from docgemma.events import LLMUsage
from experiments.bench_concurrency import (
    TOPICS,
    concurrency_table,
    figure,
    question,
    session_row,
    single_session_change,
    write_run,
)
from experiments.evaluation.harness import TurnRecord


def record(done: float, first: float | None = 1.0, tokens: int = 30) -> TurnRecord:
    events = [
        LLMUsage(node="intent_classify", purpose="intent", prompt_tokens=100, completion_tokens=5),
        LLMUsage(node="synthesize", purpose="synthesize", completion_tokens=tokens),
    ]
    return TurnRecord(
        result=TurnResult(final_response="ok"), events=events, wall_s=done, first_token_s=first
    )


def frame() -> pd.DataFrame:
    rows = []
    for engine, slow in (("worker", 2.0), ("server", 1.0)):
        for level in (1, 4):
            for wave in range(2):
                for n in range(level):
                    row = session_row(engine, level, wave, n, record(slow * (n + 1)))
                    rows.append(row | {"wave_s": slow * level})
    rows.append(session_row("server", 4, 2, 0, RuntimeError("engine gone")) | {"wave_s": 1.0})
    return pd.DataFrame(rows)


def test_a_session_row_counts_every_model_calls_tokens() -> None:
    row = session_row("worker", 4, 0, 2, record(3.0, tokens=40))
    assert row["completion_tokens"] == 45 and row["prompt_tokens"] == 100
    assert row["model_calls"] == 2 and row["done_s"] == 3.0 and row["error"] is None
    failed = session_row("worker", 4, 0, 3, RuntimeError("x"))
    assert "RuntimeError" in failed["error"]


def test_the_table_gives_waits_throughput_and_failures_per_engine_and_level() -> None:
    table = concurrency_table(frame()).set_index(["engine", "sessions"])
    assert table.loc[("worker", 4), "done median s"] == pytest.approx(5.0)  # 2, 4, 6, 8
    assert table.loc[("worker", 4), "done p95 s"] == pytest.approx(8.0)
    assert table.loc[("worker", 4), "decode tok/s"] == pytest.approx(4 * 35 / 8.0)
    assert table.loc[("server", 4), "failed"] == 1 and table.loc[("worker", 4), "failed"] == 0
    assert table.loc[("worker", 4), "no model call"] == 0


def test_a_session_answered_without_the_model_is_counted() -> None:
    answered_by_code = TurnRecord(result=TurnResult(final_response="declined"), wall_s=0.02)
    rows = [session_row("worker", 1, 0, 0, answered_by_code) | {"wave_s": 0.02}]
    assert concurrency_table(pd.DataFrame(rows)).loc[0, "no model call"] == 1
    assert list(concurrency_table(frame())["sessions"]) == [1, 1, 4, 4]


def test_single_session_change_compares_server_with_worker() -> None:
    table = concurrency_table(frame())
    assert single_session_change(table) == pytest.approx(-0.5)
    assert single_session_change(table[table["engine"] == "worker"]) is None


def test_every_session_asks_about_its_own_topic() -> None:
    assert len({question(n) for n in range(len(TOPICS))}) == len(TOPICS)


def test_the_run_folder_holds_sessions_summary_manifest_and_figure(tmp_path: Path) -> None:
    settings = Settings(model="gemma3-270m", engine_slots=4)
    folder = write_run(frame(), settings, ("worker", "server"), 2, tmp_path)
    assert pd.read_parquet(folder / "sessions.parquet").shape[0] == len(frame())
    summary = (folder / "summary.md").read_text()
    assert "done median s" in summary and "server against worker: -50.0%" in summary
    assert json.loads((folder / "manifest.json").read_text())["slots"] == 4
    assert (folder / "figures" / "concurrency.html").is_file()
    assert len(figure(concurrency_table(frame())).data) == 6

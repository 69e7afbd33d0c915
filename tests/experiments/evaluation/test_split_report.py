"""The report: dev and test side by side with the gap, and one figure per category."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from experiments.evaluation import run as run_module
from experiments.evaluation.run import earlier_rows, save
from experiments.evaluation.split_report import category_figures, gap_table, summary_markdown


def cases_frame() -> pd.DataFrame:
    rows = []
    for split, recall in (("dev", 1.0), ("test", 0.5)):
        for category in ("direct", "refusal"):
            rows.append(
                {
                    "case_id": f"{split}-{category}",
                    "split": split,
                    "specialty": "-" if split == "dev" else "renal",
                    "category": category,
                    "tool_group": category,
                    "route_ok": True,
                    "tool_exact": True,
                    "key_fact_recall": recall,
                    "key_fact_recall_model": recall / 2,
                    "refused_when_needed": math.nan if category == "direct" else split == "dev",
                    "degenerate": False,
                    "leaked": False,
                    "forbidden": False,
                    "latency_s": 2.0,
                }
            )
    return pd.DataFrame(rows)


def turns_frame() -> pd.DataFrame:
    rows = []
    for split, ok in (("dev", True), ("test", False)):
        for turn in (1, 2):
            rows.append(
                {
                    "session_id": f"{split}-s",
                    "split": split,
                    "theme": "continuity",
                    "turn": turn,
                    "tool_exact": True,
                    "arg_accuracy": math.nan,
                    "key_fact_recall": 1.0,
                    "correct_patient": ok,
                    "continuity": ok if turn == 2 else math.nan,
                    "asked_when_needed": math.nan,
                    "refused_when_needed": math.nan,
                    "approval_shown": math.nan,
                    "leaked": False,
                    "degenerate": False,
                    "forbidden": False,
                    "turn_ok": ok,
                    "latency_s": 1.0,
                }
            )
    return pd.DataFrame(rows)


def test_the_gap_is_test_minus_dev():
    frame = cases_frame()
    table = gap_table(
        {s: frame[frame["split"] == s] for s in ("dev", "test")}, ("key_fact_recall",)
    )
    (row,) = table.to_dict("records")
    assert row["dev"] == 1.0 and row["test"] == 0.5 and row["gap (test - dev)"] == -0.5


def test_the_summary_puts_dev_and_test_side_by_side_for_cases_and_sessions():
    text = summary_markdown(cases_frame(), turns_frame(), "Run", figures=["figures/x.png"])
    assert "| key_fact_recall_model | 0.5" in text and "gap (test - dev)" in text
    assert "### Sessions" in text and "| session_ok | 1" in text
    assert "test: cases written by specialty" in text and "![x](figures/x.png)" in text


def test_one_figure_per_category_and_one_for_the_sessions():
    figures = category_figures(cases_frame(), turns_frame())
    assert set(figures) == {"category-direct", "category-refusal", "sessions-by-theme"}


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_one_split_run_borrows_the_other_split_from_the_latest_earlier_run(tmp_path, settings):
    frame, turns = cases_frame(), turns_frame()
    first = tmp_path / "eval" / "m-20260101T000000Z"
    first.mkdir(parents=True)
    save(frame, turns, settings, "m", first, None)
    second = tmp_path / "eval" / "m-20260102T000000Z"
    second.mkdir()
    test_only = frame[frame["split"] == "test"]
    save(test_only, turns[turns["split"] == "test"], settings, "m", second, None, ("test",))
    rows, source = earlier_rows(second, "m", run_module.CASES_FILE, "dev")
    assert source == first.name and set(rows["split"]) == {"dev"}
    summary = (second / "summary.md").read_text(encoding="utf-8")
    assert f"dev cases from `{first.name}`" in summary
    assert f"dev sessions from `{first.name}`" in summary


def test_the_run_folder_holds_a_png_per_category_and_the_summary_shows_them(tmp_path, settings):
    folder = tmp_path / "eval" / "m-20260101T000000Z"
    folder.mkdir(parents=True)
    save(cases_frame(), turns_frame(), settings, "m", folder, None, figures=True)
    for name in ("category-direct", "category-refusal", "sessions-by-theme"):
        png = folder / "figures" / f"{name}.png"
        assert png.read_bytes()[:4] == b"\x89PNG", name
    summary = (folder / "summary.md").read_text(encoding="utf-8")
    assert "![category-direct](figures/category-direct.png)" in summary
    assert (folder / "sessions.csv").exists() and (folder / "sessions.parquet").exists()

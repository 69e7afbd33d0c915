"""The evaluation's report: dev and test side by side, the gap, per-category figures.

``summary_markdown`` writes ``summary.md`` from the per-case rows and the per-turn session
rows of one run: a dev-vs-test table with the gap (test − dev) as its own column, then the
per-category, per-specialty and per-tool tables of each split, key-fact recall of the
model's own text next to that of the whole answer, and the session tables. ``save_figures``
draws one plotly figure per case category (and one for the sessions by theme), each
metric's dev and test bars side by side, exported as static PNG through kaleido and the
machine's Chromium; without them the figure is skipped with a logged reason.
"""

from __future__ import annotations

import logging
import math
import re
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from experiments.evaluation.scoring import category_table
from experiments.evaluation.session_run import session_table
from experiments.report import markdown_table

log = logging.getLogger(__name__)
SPLITS = ("dev", "test")
HEADLINE = (
    "route_ok",
    "tool_exact",
    "arg_accuracy",
    "key_fact_recall",
    "key_fact_recall_model",
    "asked_when_needed",
    "refused_when_needed",
    "excluded_first",
    "degenerate",
    "leaked",
    "forbidden",
)
"""Per-case metrics of the dev-vs-test table (degenerate, leaked, forbidden: lower is better)."""
SESSION_HEADLINE = (
    "turn_ok",
    "session_ok",
    "continuity",
    "correct_patient",
    "tool_exact",
    "key_fact_recall",
    "asked_when_needed",
    "refused_when_needed",
    "leaked",
    "degenerate",
)
FIGURE_METRICS = ("route_ok", "tool_exact", "key_fact_recall", "key_fact_recall_model")


def metric_mean(frame: pd.DataFrame, metric: str) -> float:
    """The mean of a per-case metric over its known values; NaN when there are none."""
    if frame.empty or metric not in frame:
        return math.nan
    values = pd.to_numeric(frame[metric], errors="coerce").dropna()
    return float(values.mean()) if len(values) else math.nan


def gap_table(rows: dict[str, pd.DataFrame], metrics: tuple[str, ...]) -> pd.DataFrame:
    """One row per metric: its dev and test means, and the gap (test − dev)."""
    table = []
    for metric in metrics:
        dev, test = (metric_mean(rows.get(s, pd.DataFrame()), metric) for s in SPLITS)
        table.append({"metric": metric, "dev": dev, "test": test, "gap (test - dev)": test - dev})
    return pd.DataFrame(table)


def by_split(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    if frame.empty or "split" not in frame:
        return {}
    return {s: frame[frame["split"] == s] for s in SPLITS if (frame["split"] == s).any()}


def summary_markdown(
    cases: pd.DataFrame,
    turns: pd.DataFrame,
    title: str,
    *,
    borrowed: dict[str, str] | None = None,
    figures: list[str] = (),
) -> str:
    """The run's summary; ``borrowed`` names the earlier run a split's rows came from."""
    case_splits, turn_splits = by_split(cases), by_split(turns)
    sessions = session_table(turns) if not turns.empty else pd.DataFrame()
    parts = [f"# {title}\n"]
    if borrowed:
        parts.append(
            "Rows of a split this run did not include are taken from the latest earlier run: "
            + "; ".join(f"{what} from `{folder}`" for what, folder in borrowed.items())
            + ".\n"
        )
    counts = ", ".join(f"{s}: {len(f)} cases" for s, f in case_splits.items()) or "no cases"
    parts += ["## Dev and test side by side\n", f"{counts}.\n"]
    if case_splits:
        parts += ["### Cases\n", markdown_table(gap_table(case_splits, HEADLINE))]
    if turn_splits:
        per_session = by_split(sessions)
        n = ", ".join(
            f"{s}: {len(per_session[s])} sessions, {len(t)} turns" for s, t in turn_splits.items()
        )
        parts += ["\n### Sessions (per turn; session_ok per session)\n", f"{n}.\n"]
        parts.append(markdown_table(_session_gap(turn_splits, per_session)))
    for split, frame in case_splits.items():
        parts += [f"\n## {split}: cases by category\n", markdown_table(category_table(frame))]
        written = frame[frame["specialty"] != "-"] if "specialty" in frame else frame.iloc[:0]
        if not written.empty:
            parts += [
                f"\n## {split}: cases written by specialty\n",
                markdown_table(category_table(written, by="specialty")),
            ]
        single = frame[frame["category"] == "single_tool"]
        if not single.empty:
            parts += [
                f"\n## {split}: single-tool cases by tool\n",
                markdown_table(category_table(single, by="tool_group")),
            ]
    if not sessions.empty:
        themes = (
            sessions.groupby(["split", "theme"], sort=True)
            .agg(
                sessions=("session_id", "size"),
                turn_ok=("turn_ok", "mean"),
                session_ok=("session_ok", "mean"),
                continuity=("continuity", "mean"),
            )
            .reset_index()
        )
        parts += ["\n## Sessions by theme\n", markdown_table(themes)]
        parts += ["\n## Every session\n", markdown_table(sessions)]
    if figures:
        parts.append("\n## Figures\n")
        parts += [f"![{Path(f).stem}]({f})\n" for f in figures]
    return "\n".join(parts)


def _session_gap(turns: dict[str, pd.DataFrame], sessions: dict[str, pd.DataFrame]) -> pd.DataFrame:
    table = gap_table(turns, tuple(m for m in SESSION_HEADLINE if m != "session_ok"))
    dev, test = (metric_mean(sessions.get(s, pd.DataFrame()), "session_ok") for s in SPLITS)
    extra = pd.DataFrame(
        [{"metric": "session_ok", "dev": dev, "test": test, "gap (test - dev)": test - dev}]
    )
    latency = {s: turns[s]["latency_s"].median() if s in turns else math.nan for s in SPLITS}
    extra_latency = pd.DataFrame(
        [
            {
                "metric": "latency_median_s",
                "dev": latency["dev"],
                "test": latency["test"],
                "gap (test - dev)": latency["test"] - latency["dev"],
            }
        ]
    )
    return pd.concat([table, extra, extra_latency], ignore_index=True)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def category_figures(cases: pd.DataFrame, turns: pd.DataFrame) -> dict[str, Any]:
    """One figure per case category (dev and test bars per metric) and one for sessions."""
    import plotly.graph_objects as go

    figures: dict[str, Any] = {}
    splits = by_split(cases)
    for category in sorted(cases["category"].unique()) if not cases.empty else []:
        fig = go.Figure()
        for split, frame in splits.items():
            part = frame[frame["category"] == category]
            values = [metric_mean(part, m) for m in FIGURE_METRICS]
            fig.add_bar(name=f"{split} (n={len(part)})", x=list(FIGURE_METRICS), y=values)
        fig.update_layout(
            title=f"{category}: dev and test",
            barmode="group",
            yaxis={"range": [0, 1], "title": "mean"},
            width=720,
            height=420,
        )
        figures[f"category-{_slug(category)}"] = fig
    if not turns.empty:
        fig = go.Figure()
        for split, frame in by_split(turns).items():
            themes = frame.groupby("theme")["turn_ok"].mean()
            fig.add_bar(name=split, x=list(themes.index), y=list(themes.values))
        fig.update_layout(
            title="Sessions: turns passed per theme",
            barmode="group",
            yaxis={"range": [0, 1], "title": "turns passed"},
            width=840,
            height=420,
        )
        figures["sessions-by-theme"] = fig
    return figures


def save_figures(cases: pd.DataFrame, turns: pd.DataFrame, folder: Path) -> list[str]:
    """PNG files of ``category_figures`` under ``folder/figures``; paths relative to ``folder``."""
    from experiments.figures import _shared_browser

    target = folder / "figures"
    target.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    _shared_browser()
    for name, fig in category_figures(cases, turns).items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                fig.write_image(target / f"{name}.png")
        except Exception as exc:  # kaleido missing, or no Chromium for it to drive
            reason = next((ln for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
            log.warning("static figure export skipped: %s", reason.strip())
            break
        written.append(f"figures/{name}.png")
    return written

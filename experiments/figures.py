"""Plotly figures per suite, saved as standalone HTML beside the results.

HTML references one local ``plotly.min.js`` in the figures folder, so the files open
offline. PNG export needs kaleido and a Chrome; without them it is skipped with a log
line, never an error.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from types import ModuleType

import pandas as pd
import plotly.graph_objects as go

from experiments.report import summarize

log = logging.getLogger(__name__)


def accuracy_by_strategy(summary: pd.DataFrame, title: str) -> go.Figure:
    """Ours per strategy and metric with 95% intervals; the seed's MedGemma figure as a diamond."""
    fig = go.Figure()
    shown = summary[summary["metric"] != "llm_judge_score"]
    for metric, rows in shown.groupby("metric", sort=False):
        upper = (rows["ci_high"] - rows["ours"]).fillna(0)
        lower = (rows["ours"] - rows["ci_low"]).fillna(0)
        fig.add_bar(
            name=f"ours: {metric}",
            x=rows["strategy"],
            y=rows["ours"],
            error_y={"type": "data", "array": upper, "arrayminus": lower},
        )
        seed = rows[rows["seed_medgemma"].notna()]
        if not seed.empty:
            fig.add_scatter(
                name=f"seed MedGemma: {metric}",
                x=seed["strategy"],
                y=seed["seed_medgemma"],
                mode="markers",
                marker={"symbol": "diamond", "size": 11},
            )
    fig.update_layout(title=title, barmode="group", yaxis={"range": [0, 1.05], "title": "rate"})
    return fig


def latency_distribution(frame: pd.DataFrame, title: str) -> go.Figure:
    fig = go.Figure()
    for strategy, rows in frame.groupby("strategy", sort=False):
        fig.add_box(name=strategy, y=rows["latency_s"], boxpoints="all")
    fig.update_layout(title=title, yaxis={"title": "seconds per trial"}, showlegend=False)
    return fig


def parameter_curve(
    frame: pd.DataFrame, prefix: str, metrics: list[str], title: str, x_title: str
) -> go.Figure | None:
    """A metric against the number in strategy names ``<prefix><number>`` (T, budget, waits)."""
    pattern = re.compile(rf"^{re.escape(prefix)}([0-9.]+)$")
    rows = frame[frame["strategy"].str.match(pattern)]
    if rows.empty:
        return None
    x = rows["strategy"].str.extract(pattern)[0].astype(float)
    fig = go.Figure()
    for metric in metrics:
        if metric not in rows:
            continue
        means = pd.to_numeric(rows[metric], errors="coerce").groupby(x).mean().sort_index()
        if means.notna().any():
            fig.add_scatter(name=metric, x=means.index, y=means.values, mode="lines+markers")
    fig.update_layout(title=title, xaxis={"title": x_title})
    return fig


def heatmap(table: pd.DataFrame, title: str) -> go.Figure:
    fig = go.Figure(
        go.Heatmap(
            z=table.values,
            x=list(table.columns),
            y=list(table.index),
            text=table.values,
            texttemplate="%{text}",
            colorscale="Blues",
        )
    )
    fig.update_layout(title=title, xaxis={"title": "predicted"}, yaxis={"title": "expected"})
    return fig


def suite_figures(frame: pd.DataFrame, module: ModuleType) -> dict[str, go.Figure]:
    """Every figure that makes sense for this suite and run."""
    if frame.empty:
        return {}
    suite = module.SUITE
    summary = summarize(frame, module.PRIMARY_METRICS, getattr(module, "DERIVED", None))
    figures: dict[str, go.Figure | None] = {
        "accuracy_by_strategy": accuracy_by_strategy(summary, f"{suite}: metrics by strategy")
        if not summary.empty
        else None,
        "latency": latency_distribution(frame, f"{suite}: latency per trial"),
    }
    if suite == "thinking":
        words = ["thinking_words", "visible_words"]
        figures["budget_max"] = parameter_curve(
            frame, "max_", words, "thinking: maximum budget", "budget (tokens)"
        )
        figures["budget_waits"] = parameter_curve(
            frame,
            "min_wait_",
            [*words, "waits_inserted"],
            "thinking: suppressed ends of thinking",
            "'Wait' insertions",
        )
        figures["temperature"] = parameter_curve(
            frame,
            "temperature_",
            ["empty_visible", "close_emitted"],
            "thinking: temperature",
            "temperature",
        )
    if suite == "synthesis":
        curve = ["key_fact_rate", "source_clean", "empty_output"]
        figures["temperature"] = parameter_curve(
            frame, "temperature_", curve, "synthesis: temperature", "temperature"
        )
        figures["max_tokens"] = parameter_curve(
            frame, "max_tokens_", [*curve, "word_count"], "synthesis: max tokens", "max_tokens"
        )
    if suite == "routing" and (frame["strategy"] == "result_quality").any():
        from experiments.routing import confusion_matrix

        figures["confusion"] = heatmap(confusion_matrix(frame), "result quality: confusion matrix")
    if suite == "classifiers":
        from experiments.classifiers import calibration

        table = calibration(frame)
        if not table.empty:
            fig = go.Figure()
            for strategy, rows in table.groupby("strategy"):
                fig.add_scatter(
                    name=f"{strategy} accuracy", x=rows["threshold"], y=rows["accuracy"]
                )
                fig.add_scatter(
                    name=f"{strategy} coverage",
                    x=rows["threshold"],
                    y=rows["coverage"],
                    line={"dash": "dot"},
                )
            fig.update_layout(
                title="embedding classifier: accuracy and coverage by threshold",
                xaxis={"title": "confidence threshold"},
            )
            figures["calibration"] = fig
    return {name: fig for name, fig in figures.items() if fig is not None}


def plotly_js(results_dir: Path) -> Path:
    """One offline copy of plotly.js per results folder, shared by every run's figures."""
    path = results_dir / "plotly.min.js"
    if not path.is_file():
        from plotly.offline import get_plotlyjs

        results_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(get_plotlyjs(), encoding="utf-8")
    return path


def save_figures(
    frame: pd.DataFrame, module: ModuleType, folder: Path, results_dir: Path
) -> dict[str, str]:
    """Write each figure as HTML (and PNG when kaleido works); paths relative to the run folder.

    The HTML loads plotly.js from ``results_dir`` by relative path, so it opens offline
    as long as the run folder stays inside its results folder.
    """
    folder.mkdir(parents=True, exist_ok=True)
    script = os.path.relpath(plotly_js(results_dir), folder)
    written: dict[str, str] = {}
    png = True
    for name, fig in suite_figures(frame, module).items():
        fig.write_html(folder / f"{name}.html", include_plotlyjs=script)
        written[name] = f"{folder.name}/{name}.html"
        if png:
            try:
                fig.write_image(folder / f"{name}.png")
            except Exception as exc:  # kaleido missing, or no Chrome for it to drive
                reason = next(
                    (line for line in str(exc).splitlines() if line.strip()), type(exc).__name__
                )
                log.info("PNG export skipped: %s", reason.strip())
                png = False
    return written

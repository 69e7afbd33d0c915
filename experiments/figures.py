"""Plotly figures per suite, saved as standalone HTML and as PNG/SVG beside the results.

HTML references one local ``plotly.min.js`` in the figures folder, so the files open
offline. Static export needs kaleido and a Chromium (Debian's, installed by
``make test``); without them it is skipped with a logged reason, never an error.
"""

from __future__ import annotations

import atexit
import logging
import os
import warnings
from functools import cache
from pathlib import Path
from types import ModuleType

import pandas as pd
import plotly.graph_objects as go

from experiments.report import summarize

log = logging.getLogger(__name__)
STATIC_FORMATS = ("png", "svg")


def accuracy_by_strategy(summary: pd.DataFrame, title: str) -> go.Figure:
    """Ours per strategy and metric with 95% intervals; the MedGemma study figure as a diamond."""
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
    frame: pd.DataFrame, sweep: str, metrics: list[str], title: str
) -> go.Figure | None:
    """Metrics against the swept parameter, over the rows of the strategies that sweep it.

    Both the rows and the x values come from the ``sweep`` and parameter columns the
    strategies declare; nothing is read out of strategy names.
    """
    rows = frame[frame["sweep"] == sweep] if "sweep" in frame else frame.iloc[0:0]
    if rows.empty or sweep not in rows:
        return None
    x = pd.to_numeric(rows[sweep], errors="coerce")
    fig = go.Figure()
    for metric in metrics:
        if metric not in rows:
            continue
        means = pd.to_numeric(rows[metric], errors="coerce").groupby(x).mean().sort_index()
        if means.notna().any():
            fig.add_scatter(name=metric, x=means.index, y=means.values, mode="lines+markers")
    fig.update_layout(title=title, xaxis={"title": sweep.replace("_", " ")})
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
    """The shared figures of a run, plus those of the suite's own ``figures`` hook."""
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
    curves: dict[str, list[str]] = getattr(module, "CURVES", {})
    for sweep in frame["sweep"].dropna().unique() if "sweep" in frame else ():
        metrics = curves.get(sweep, list(module.PRIMARY_METRICS))
        figures[f"sweep_{sweep}"] = parameter_curve(frame, sweep, metrics, f"{suite}: {sweep}")
    extra = getattr(module, "figures", None)
    if extra is not None:
        figures.update(extra(frame))
    return {name: fig for name, fig in figures.items() if fig is not None}


def plotly_js(results_dir: Path) -> Path:
    """One offline copy of plotly.js per results folder, shared by every run's figures."""
    path = results_dir / "plotly.min.js"
    if not path.is_file():
        from plotly.offline import get_plotlyjs

        results_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(get_plotlyjs(), encoding="utf-8")
    return path


@cache
def _shared_browser() -> bool:
    """Start kaleido's browser once per process, so each image costs ~0.5 s, not a launch."""
    try:
        import kaleido

        kaleido.start_sync_server(silence_warnings=True)
    except Exception as exc:  # kaleido missing or too old: every export then says why
        log.warning("static figure export without a shared browser: %s", exc)
        return False
    atexit.register(kaleido.stop_sync_server, silence_warnings=True)
    return True


def show(fig: go.Figure) -> None:
    """Show a figure in a notebook: interactive, with a PNG copy in the same output for
    viewers that run no JavaScript (a notebook read on GitHub). Without kaleido and a
    Chromium, only the interactive figure, and the reason is logged."""
    _shared_browser()
    try:
        with warnings.catch_warnings():  # "kopts ignored": the shared browser's own
            warnings.simplefilter("ignore", UserWarning)
            fig.show(renderer="plotly_mimetype+png")
    except Exception as exc:  # kaleido missing, or no Chromium for it to drive
        log.warning("figure shown without its static copy: %s", exc)
        fig.show(renderer="plotly_mimetype")


def save_figures(
    frame: pd.DataFrame, module: ModuleType, folder: Path, results_dir: Path
) -> dict[str, str]:
    """Write each figure as HTML, plus PNG and SVG for reports; paths relative to the run folder.

    The HTML loads plotly.js from ``results_dir`` by relative path, so it opens offline
    as long as the run folder stays inside its results folder. Static images go through
    kaleido, which drives the machine's Chromium; without one they are skipped with a
    logged reason, never an error.
    """
    folder.mkdir(parents=True, exist_ok=True)
    script = os.path.relpath(plotly_js(results_dir), folder)
    written: dict[str, str] = {}
    _shared_browser()
    static = True
    for name, fig in suite_figures(frame, module).items():
        fig.write_html(folder / f"{name}.html", include_plotlyjs=script)
        written[name] = f"{folder.name}/{name}.html"
        for suffix in STATIC_FORMATS if static else ():
            try:
                with warnings.catch_warnings():  # "kopts ignored": the shared browser's own
                    warnings.simplefilter("ignore", UserWarning)
                    fig.write_image(folder / f"{name}.{suffix}")
            except Exception as exc:  # kaleido missing, or no Chromium for it to drive
                reason = next(
                    (line for line in str(exc).splitlines() if line.strip()), type(exc).__name__
                )
                log.warning("static figure export skipped: %s", reason.strip())
                static = False
                break
    return written

"""The readable report of a run: the comparison table, its notes and the suite's sections.

The report's comparison table has one line per strategy and
metric, the design study's MedGemma figure beside ours with a 95% interval — and says plainly
when the backend did not keep the schema's property order, because the field-ordering
comparison is then meaningless for that run.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import pandas as pd

from experiments import stats
from experiments.seed_figures import seed_figure, seed_metrics
from experiments.trial import RunConfig

BOOLEAN_HINT = (
    "correct",
    "tool_exact",
    "tool_acceptable",
    "source_clean",
    "empty_output",
    "empty_visible",
    "thinking_triggered",
    "close_emitted",
    "parse_ok",
)


def _metric_values(
    rows: pd.DataFrame, metric: str, derived: dict[str, tuple[str, ...]]
) -> list[Any] | None:
    if metric in derived:
        subset = rows[rows["expected"].astype(str).isin(derived[metric])]
        return list(subset["correct"]) if not subset.empty else None
    if metric not in rows.columns:
        return None
    values = list(rows[metric])
    return (
        values
        if any(v is not None and not (isinstance(v, float) and math.isnan(v)) for v in values)
        else None
    )


def _estimate(metric: str, values: list[Any]) -> tuple[float, float, float, int]:
    kept = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if (
        all(isinstance(v, bool) for v in kept)
        or metric in BOOLEAN_HINT
        or metric.startswith("correct_on_")
    ):
        return stats.proportion(kept)
    if metric == "llm_judge_score":
        mean = sum(kept) / len(kept) if kept else math.nan
        return (mean, math.nan, math.nan, len(kept))
    return stats.mean_interval(kept)


def summarize(
    frame: pd.DataFrame, primary: tuple[str, ...], derived: dict | None = None
) -> pd.DataFrame:
    """One line per strategy and metric: ours with its interval, the study's figure, latency."""
    derived = derived or {}
    lines = []
    if frame.empty:
        return pd.DataFrame()
    suite = frame["suite"].iloc[0]
    for strategy, rows in frame.groupby("strategy", sort=False):
        wanted = list(dict.fromkeys([*primary, *seed_metrics(suite, strategy)]))
        for metric in wanted:
            values = _metric_values(rows, metric, derived)
            seed = seed_figure(suite, strategy, metric)
            if values is None and seed is None:
                continue
            ours, low, high, n = _estimate(metric, values or [])
            honoured = [v for v in rows["key_order_honoured"] if v is not None and not pd.isna(v)]
            lines.append(
                {
                    "strategy": strategy,
                    "metric": metric,
                    "n": n,
                    "ours": ours,
                    "ci_low": low,
                    "ci_high": high,
                    "seed_medgemma": seed.value if seed else math.nan,
                    "seed_evidence": seed.evidence if seed else "",
                    "parse_ok": rows["parse_ok"].astype(bool).mean(),
                    "key_order_honoured": (sum(map(bool, honoured)) / len(honoured))
                    if honoured
                    else math.nan,
                    "latency_median_s": rows["latency_s"].median(),
                }
            )
    return pd.DataFrame(lines)


def key_order_violations(frame: pd.DataFrame) -> pd.DataFrame:
    """Trials whose constrained output did not follow the schema's property order."""
    if "key_order_honoured" not in frame:
        return frame.iloc[0:0]
    flags = frame["key_order_honoured"]
    return frame[flags.notna() & (flags == False)]  # noqa: E712 - element-wise on an object column


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def markdown_table(table: pd.DataFrame) -> str:
    if table.empty:
        return "_no rows_\n"
    header = "| " + " | ".join(str(c) for c in table.columns) + " |"
    rule = "|" + "|".join("---" for _ in table.columns) + "|"
    body = ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return "\n".join([header, rule, *body]) + "\n"


def comparison_table(summary: pd.DataFrame, model: str) -> pd.DataFrame:
    """The summary as the comparison table, for the report."""
    if summary.empty:
        return summary
    return pd.DataFrame(
        {
            "Strategy": summary["strategy"],
            "Metric": summary["metric"],
            "Seed (MedGemma 1.5 4B)": summary["seed_medgemma"],
            f"Ours ({model})": summary["ours"],
            "95% CI": [
                f"[{_fmt(lo)}, {_fmt(hi)}]" if not math.isnan(lo) else "—"
                for lo, hi in zip(summary["ci_low"], summary["ci_high"], strict=True)
            ],
            "n": summary["n"],
            "Parse OK": summary["parse_ok"],
            "Key order kept": summary["key_order_honoured"],
            "Median latency (s)": summary["latency_median_s"],
            "Evidence": summary["seed_evidence"],
        }
    )


def _seed_notes(suite: str, summary: pd.DataFrame) -> list[str]:
    """What each seed figure in the table measured, where that differs from the bare metric."""
    if summary.empty:
        return []
    notes = []
    for strategy, metric in zip(summary["strategy"], summary["metric"], strict=True):
        figure = seed_figure(suite, strategy, metric)
        if figure is not None and figure.note:
            notes.append(f"- `{strategy}` / `{metric}` ({figure.evidence}): {figure.note}\n")
    return notes


def render_report(
    frame: pd.DataFrame, config: RunConfig, manifest: dict[str, Any], module: ModuleType
) -> str:
    info = frame.attrs.get("run", {})
    model = info.get("model", "?")
    summary = summarize(frame, module.PRIMARY_METRICS, getattr(module, "DERIVED", None))
    parts = [
        f"# {config.suite} — {info.get('backend', config.backend)} / {model}\n",
        f"Run {manifest['run_id']}, git {manifest.get('git_revision') or 'unknown'}, "
        f"{len(frame)} trials, seed {config.seed}"
        + (f", token cap {config.token_cap}" if config.token_cap else "")
        + ".\n",
        "Seed figures are MedGemma 1.5 4B results from the seed's upstream study "
        "(N = 10–20 per strategy); ours are from this run. Proportions carry Wilson 95% "
        "intervals, fractional scores a normal one.\n",
    ]
    violations = key_order_violations(frame)
    if len(violations):
        parts.append(
            f"\n> **FLAGGED — schema key order not honoured** in {len(violations)} trial(s) "
            f"(strategies: {', '.join(sorted(violations['strategy'].unique()))}). "
            "This backend reorders "
            "properties, so field-ordering results from this run do not measure field ordering.\n"
        )
    elif frame.get("key_order_honoured") is not None and frame["key_order_honoured"].notna().any():
        parts.append("\nEvery constrained output followed the schema's property order.\n")
    parts += ["\n## Strategy comparison\n", markdown_table(comparison_table(summary, model))]
    notes = _seed_notes(config.suite, summary)
    if notes:
        parts += ["\n### Notes on the seed figures\n", *notes]
    if "llm_judge_score" in frame.columns:
        parts.append(
            f"\n`llm_judge_score` is an LLM-as-judge score from {info.get('llm_judge', '?')}, "
            "not a human rating; the seed's are Gemini scores.\n"
        )
    parts.append("\n## Strategies\n")
    parts += [f"- `{name}`: {text}\n" for name, text in info.get("strategies", {}).items()]
    sections = getattr(module, "report_sections", None)
    if sections is not None:
        parts += sections(frame)
    if manifest.get("figures"):
        parts.append("\n## Figures\n")
        parts += [f"- [{name}]({path})\n" for name, path in manifest["figures"].items()]
    return "".join(parts)

"""The run folder: results, a manifest that makes the run reproducible, and a readable report.

The report's comparison table has the seed's shape — one line per strategy and
metric, the seed's MedGemma figure beside ours with a 95% interval — and says plainly
when the backend did not keep the schema's property order, because the field-ordering
comparison is then meaningless for that run.
"""

from __future__ import annotations

import json
import logging
import math
import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from docgemma.config import Settings
from experiments import stats
from experiments.seed_figures import seed_figure, seed_metrics
from experiments.trial import RunConfig

log = logging.getLogger(__name__)
PACKAGES = (
    "docgemma",
    "llama-cpp-python",
    "pydantic",
    "pandas",
    "pyarrow",
    "plotly",
    "datasets",
    "langgraph",
    "onnxruntime",
    "scikit-learn",
    "vllm",
    "transformers",
    "outlines",
)
RUN_SETTINGS = (
    "backend",
    "model_path",
    "chat_format",
    "n_ctx",
    "n_threads",
    "seed",
    "openai_base_url",
    "openai_model",
    "openai_dialect",
    "openai_supports_vision",
    "llm_timeout_s",
    "llm_max_retries",
    "hf_model",
    "hf_supports_vision",
    "thinking",
    "thinking_family",
    "thinking_min_tokens",
    "thinking_max_tokens",
    "intent_classifier",
    "tool_classifier",
    "result_classifier",
    "classifier_threshold",
)
"""Backend settings that shape a run, written to the manifest. An allow-list, so keys,
tokens and client secrets never reach a results folder, even when new ones are added."""
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


def package_versions() -> dict[str, str]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def git_revision() -> str | None:
    """The checkout's commit, with ``+dirty`` when files differ from it (read-only git calls)."""
    root = Path(__file__).resolve().parents[1]
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{rev}+dirty" if dirty else rev


def settings_manifest(settings: Settings, model_path: str | None = None) -> dict[str, Any]:
    """The run's resolved backend settings; ``model_path`` is the file the backend really loaded."""
    resolved = settings.model_dump(mode="json", include=set(RUN_SETTINGS))
    if model_path is not None:
        resolved["model_path"] = model_path
    return {name: resolved[name] for name in RUN_SETTINGS}


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
    """One line per strategy and metric: ours with its interval, the seed's figure, latency."""
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
    """The summary in the seed's shape, for the report."""
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


def render_report(frame: pd.DataFrame, config: RunConfig, manifest: dict[str, Any], module) -> str:
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
    if config.suite == "routing" and (frame["strategy"] == "result_quality").any():
        from experiments.routing import confusion_matrix

        parts += [
            "\n## Result quality confusion matrix (rows: expected)\n",
            markdown_table(confusion_matrix(frame).reset_index()),
        ]
    if config.suite == "classifiers" and "method" in frame:
        from experiments.classifiers import calibration

        parts += [
            "\n## Embedding classifier: accuracy and coverage by confidence threshold\n",
            markdown_table(calibration(frame)),
        ]
    if config.suite == "triage":
        from experiments.triage import summary

        parts += ["\n## Severity per strategy (final answer and model alone)\n"]
        parts.append(markdown_table(summary(frame)))
    if manifest.get("figures"):
        parts.append("\n## Figures\n")
        parts += [f"- [{name}]({path})\n" for name, path in manifest["figures"].items()]
    return "".join(parts)


def save_run(frame: pd.DataFrame, config: RunConfig, started: datetime | None = None) -> Path:
    """Write ``<results_dir>/<suite>/<UTC timestamp>/`` and return the folder."""
    from experiments import figures
    from experiments.runner import suite_module

    module = suite_module(config.suite)
    stamp = (started or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S%fZ")
    folder = Path(config.results_dir) / config.suite / stamp
    folder.mkdir(parents=True, exist_ok=False)
    frame.to_parquet(folder / "results.parquet", index=False)
    frame.to_csv(folder / "results.csv", index=False)
    info = frame.attrs.get("run", {})
    manifest: dict[str, Any] = {
        "run_id": stamp,
        "suite": config.suite,
        "model": info.get("model"),
        "backend": info.get("backend"),
        "config": config.model_dump(mode="json"),
        "backend_settings": info.get("backend_settings"),
        "strategies": info.get("strategies", {}),
        "seed": config.seed,
        "trials": len(frame),
        "git_revision": git_revision(),
        "packages": package_versions(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "written_at": datetime.now(UTC).isoformat(),
        "key_order_violations": int(len(key_order_violations(frame))),
        **{
            k: v
            for k, v in info.items()
            if k not in ("strategies", "model", "backend", "backend_settings")
        },
    }
    manifest["figures"] = figures.save_figures(
        frame, module, folder / "figures", Path(config.results_dir)
    )
    (folder / "manifest.json").write_text(
        json.dumps(manifest, indent=2, default=str), encoding="utf-8"
    )
    (folder / "report.md").write_text(
        render_report(frame, config, manifest, module), encoding="utf-8"
    )
    log.info("results written to %s", folder)
    return folder


def load_run(folder: Path | str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A saved run: its results and its manifest."""
    folder = Path(folder)
    frame = pd.read_parquet(folder / "results.parquet")
    return frame, json.loads((folder / "manifest.json").read_text(encoding="utf-8"))

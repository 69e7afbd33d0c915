"""``python -m experiments bench``: the agent's speed per path, end to end, on the real model.

Four paths — a direct answer, one tool, two tools, a tool failure followed by a retry —
each run ``--runs`` times (after one untimed warm-up of each of its cases) through the
same offline environment as the evaluation. A path's runs take its cases in turn: asked
the same question twice in a row, llama.cpp would reuse the whole previous prompt and
time a prefill a clinician never gets. For every run: wall time, time to the first timeline
event and to the first answer token (also counted from the start of synthesis), time
inside the model (the ``llm_usage`` events), inside tools, and the rest: orchestration.
Per node: model calls and tokens. ``--quick`` is the CI form: one run per path on the tiny
model and no warm-up, since it checks that the benchmark runs end to end, not how fast.
"""

from __future__ import annotations

import json
import logging
import os
import platform
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from docgemma import event_loop
from docgemma.embed import get_embedder
from docgemma.events import LLMUsage, ToolFinished
from experiments.evaluation.cases import load_eval_cases
from experiments.evaluation.harness import EvalEnvironment, TurnRecord
from experiments.evaluation.run import profile_settings
from experiments.evaluation.scoring import tools_called
from experiments.report import markdown_table
from experiments.run_folder import git_revision, provenance, settings_manifest

log = logging.getLogger(__name__)
PATHS = {
    "direct": ("direct-13", "direct-01", "direct-06", "direct-09"),
    "single_tool": ("safety-01", "interact-01", "literature-01", "trials-01"),
    "multi_tool": ("two-03", "two-01", "two-05"),
    "error_retry": ("failure-03", "failure-10"),
}
"""Path → the evaluation cases that exercise it (the path actually taken is recorded too)."""
QUICK_PROFILE = "gemma3-270m"


def case_of(path: str, run: int) -> str:
    cases = PATHS[path]
    return cases[run % len(cases)]


def run_row(
    path: str, run: int, record: TurnRecord, embedding_s: float = 0.0, engine: str = "process"
) -> dict[str, Any]:
    usage = [e for e in record.events if isinstance(e, LLMUsage)]
    model_s = sum(u.latency_s for u in usage)
    tool_s = sum(e.duration_s for e in record.events if isinstance(e, ToolFinished))
    after_synthesis = (
        record.first_token_s - record.synthesis_start_s
        if record.first_token_s is not None and record.synthesis_start_s is not None
        else None
    )
    return {
        "engine": engine,
        "path": path,
        "run": run,
        "case": case_of(path, run),
        "tools": ",".join(tools_called(record.result)),
        "wall_s": record.wall_s,
        "first_event_ms": (record.first_event_s or 0.0) * 1000,
        "first_token_s": record.first_token_s,
        "first_token_after_synthesis_s": after_synthesis,
        "model_s": model_s,
        "tool_s": tool_s,
        "embedding_ms": embedding_s * 1000,
        "orchestration_ms": max(0.0, record.wall_s - model_s - tool_s - embedding_s) * 1000,
        "model_calls": len(usage),
        "nodes": json.dumps(
            [
                {
                    "purpose": u.purpose,
                    "prompt_tokens": u.prompt_tokens,
                    "completion_tokens": u.completion_tokens,
                    "latency_s": round(u.latency_s, 4),
                }
                for u in usage
            ]
        ),
    }


async def measure(settings, llms: dict[str, Any], runs: int, warm_up: bool = True) -> pd.DataFrame:
    """Every path on every engine variant, the variants taking turns path by path, so a
    host that slows down mid-run slows each of them alike. ``warm_up``: ask each case of a
    path once, untimed, before its timed runs."""
    cases = {c.id: c for c in load_eval_cases()}
    embedder = get_embedder()
    rows = []
    async with AsyncExitStack() as stack:
        envs = {
            name: await stack.enter_async_context(EvalEnvironment(settings, llm))
            for name, llm in llms.items()
        }
        for path, path_cases in PATHS.items():
            for engine, env in envs.items():
                for case_id in path_cases if warm_up else ():
                    await env.run(cases[case_id], thread=f"bench-{engine}-{path}-warmup-{case_id}")
                for run in range(runs):
                    case = cases[case_of(path, run)]
                    embedder.forget()  # the warm-up asked this question; a clinician's is new
                    embedded = embedder.busy_s
                    record = await env.run(case, thread=f"bench-{engine}-{path}-{run}")
                    rows.append(run_row(path, run, record, embedder.busy_s - embedded, engine))
                    log.info("%s %s run %d: %.2f s", engine, path, run, record.wall_s)
    return pd.DataFrame(rows)


def _p95(values: pd.Series) -> float:
    return values.dropna().quantile(0.95) if values.notna().any() else float("nan")


def path_table(frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (engine, path), part in frame.groupby(["engine", "path"], sort=False):
        row: dict[str, Any] = {"engine": engine, "path": path, "runs": len(part)}
        for column in (
            "wall_s",
            "model_s",
            "tool_s",
            "embedding_ms",
            "orchestration_ms",
            "first_event_ms",
            "first_token_s",
            "first_token_after_synthesis_s",
        ):
            row[f"{column} median"] = part[column].median()
            row[f"{column} p95"] = _p95(part[column])
        row["model calls"] = part["model_calls"].median()
        rows.append(row)
    return pd.DataFrame(rows)


def node_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per path and node: calls per run, median tokens and model time per call."""
    calls = [
        {"path": row.path, "run": row.run, **node}
        for row in frame.itertuples()
        for node in json.loads(row.nodes)
    ]
    if not calls:
        return pd.DataFrame()
    table = pd.DataFrame(calls)
    runs = frame.groupby("path")["run"].nunique()
    grouped = table.groupby(["path", "purpose"], sort=False)
    out = grouped.agg(
        calls=("latency_s", "size"),
        prompt_tokens=("prompt_tokens", "median"),
        completion_tokens=("completion_tokens", "median"),
        latency_s=("latency_s", "median"),
    ).reset_index()
    out["calls per run"] = out["calls"] / out["path"].map(runs)
    return out.drop(columns="calls")


ENGINES = {"process": True, "in-process": False}
"""Engine variants by name: the value is ``Settings.engine_process``."""


def run_bench(
    profile: str | None,
    runs: int,
    quick: bool,
    results_dir: Path,
    engines: tuple[str, ...] = ("process",),
) -> Path:
    from docgemma.llm.registry import create_backend

    if quick:
        profile, runs = profile or QUICK_PROFILE, 1
    settings = profile_settings(profile)
    revision = git_revision()
    llms = {
        name: create_backend(settings.model_copy(update={"engine_process": ENGINES[name]}))
        for name in engines
    }
    llm = next(iter(llms.values()))
    try:
        frame = event_loop.run(measure(settings, llms, runs, warm_up=not quick))
    finally:
        for made in llms.values():
            event_loop.run(made.aclose())
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = results_dir / "bench" / f"{(profile or llm.model).replace('/', '_')}-{stamp}"
    folder.mkdir(parents=True, exist_ok=False)
    frame.to_parquet(folder / "runs.parquet", index=False)
    load = os.getloadavg()[0]
    manifest = {
        "model": profile or llm.model,
        "runs_per_path": runs,
        "warm_up": not quick,
        "engines": list(engines),
        "paths": PATHS,
        "settings": settings_manifest(settings),
        "load_average_at_end": load,
        "event_loop": event_loop.loop_name(),
        **provenance(revision),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    machine = (
        f"{platform.platform()}, {os.cpu_count()} CPUs, load {load:.1f}, "
        f"{event_loop.loop_name()} event loop"
    )
    text = [
        f"# Per-path benchmark: {profile or llm.model}\n",
        f"{runs} timed runs per path, taking its cases in turn, "
        + ("after one warm-up of each case" if not quick else "without warm-up (quick form)")
        + f"; {machine}.\n",
        "## Paths\n",
        markdown_table(path_table(frame)),
        "\n## Model calls per node\n",
        markdown_table(node_table(frame)),
    ]
    (folder / "summary.md").write_text("\n".join(text), encoding="utf-8")
    return folder

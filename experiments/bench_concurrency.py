"""``python -m experiments.bench_concurrency``: several sessions at once, on each engine kind.

The worker engine (llama-cpp-python in its own process) answers model calls one at a time
in arrival order; the server engine (llama.cpp's ``llama-server``) runs up to
``DOCGEMMA_ENGINE_SLOTS`` calls at once and batches their decoding steps. Both run the same
agent, the same real tools offline and the same model; for each number of concurrent
sessions (``--sessions``, default 1, 4 and 20) every engine serves one wave after the other,
the engines taking turns, so a host that slows down mid-run slows both alike.

Each session is a new conversation with its own short question (a topic of its own, so no
session finds another's whole prompt cached), asked with the unverified answer switched on,
so that every turn ends in a model-written answer: without it a question no offline source
answers is declined by code and times no engine. A session that made no model call anyway
is counted in the table's "no model call" column. Per session: time to the first answer token
and time to done. Per wave: aggregate decode speed, every model call's completion tokens
(structured calls and the streamed answer) over the wave's wall time. The first wave on each
engine is preceded by one untimed turn, so saved node prefixes are warm, as in a running app.

Writes ``<results>/concurrency/<model>-<UTC stamp>/`` with ``sessions.parquet`` (a row per
session), ``summary.md`` (the table), ``manifest.json`` and ``figures/concurrency.html``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import platform
import time
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from docgemma import event_loop
from docgemma.events import LLMUsage
from experiments.evaluation.harness import EvalEnvironment, TurnRecord, timed_turn
from experiments.evaluation.run import profile_settings
from experiments.figures import plotly_js
from experiments.report import markdown_table
from experiments.run_folder import git_revision, provenance, settings_manifest

log = logging.getLogger("experiments.bench_concurrency")
ENGINES = ("worker", "server")
LEVELS = (1, 4, 20)
TOPICS = (
    "gout",
    "asthma",
    "anaemia",
    "migraine",
    "psoriasis",
    "glaucoma",
    "osteoporosis",
    "hypothyroidism",
    "sciatica",
    "shingles",
    "tinnitus",
    "eczema",
    "vertigo",
    "cellulitis",
    "sinusitis",
    "bronchiolitis",
    "conjunctivitis",
    "plantar fasciitis",
    "rosacea",
    "carpal tunnel syndrome",
)
"""One topic per concurrent session; a question names a condition, the direct-answer path."""
QUICK_PROFILE = "gemma3-270m"


def question(n: int) -> str:
    return f"In two sentences, what is {TOPICS[n % len(TOPICS)]}?"


def session_row(
    engine: str, level: int, wave: int, session: int, record: TurnRecord | BaseException
) -> dict[str, Any]:
    row: dict[str, Any] = {"engine": engine, "sessions": level, "wave": wave, "session": session}
    if isinstance(record, BaseException):
        return row | {"error": repr(record)}
    usage = [e for e in record.events if isinstance(e, LLMUsage)]
    return row | {
        "first_token_s": record.first_token_s,
        "done_s": record.wall_s,
        "model_calls": len(usage),
        "prompt_tokens": sum(u.prompt_tokens for u in usage),
        "completion_tokens": sum(u.completion_tokens for u in usage),
        "error": None,
    }


async def wave(env: EvalEnvironment, engine: str, level: int, number: int) -> list[dict]:
    """``level`` new sessions started together; the wave's wall time goes on every row."""
    agent = await asyncio.to_thread(env.agent)
    start = time.perf_counter()
    records = await asyncio.gather(
        *(
            timed_turn(
                agent,
                f"concurrency-{engine}-{level}-{number}-{n}",
                question(n),
                show_unverified=True,
            )
            for n in range(level)
        ),
        return_exceptions=True,
    )
    wall = time.perf_counter() - start
    rows = [session_row(engine, level, number, n, r) for n, r in enumerate(records)]
    for row in rows:
        row["wave_s"] = wall
    tokens = sum(row.get("completion_tokens") or 0 for row in rows)
    log.info("%s, %d sessions, wave %d: %.1f s, %d tokens", engine, level, number, wall, tokens)
    return rows


async def measure(settings, llms: dict[str, Any], levels: tuple[int, ...], waves: int):
    rows: list[dict] = []
    async with AsyncExitStack() as stack:
        envs = {
            name: await stack.enter_async_context(EvalEnvironment(settings, llm))
            for name, llm in llms.items()
        }
        for name, env in envs.items():  # saved node prefixes warm, as in a running app
            agent = await asyncio.to_thread(env.agent)
            await timed_turn(agent, f"warm-{name}", question(99), show_unverified=True)
        for level in levels:
            for number in range(waves):
                for name, env in envs.items():
                    rows.extend(await wave(env, name, level, number))
    return pd.DataFrame(rows)


def _p95(values: pd.Series) -> float:
    values = values.dropna()
    return float(values.quantile(0.95)) if len(values) else float("nan")


def concurrency_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per engine and number of sessions: the times users wait, and the decode throughput."""
    rows = []
    for (engine, level), part in frame.groupby(["engine", "sessions"], sort=False):
        per_wave = part.groupby("wave").agg(
            tokens=("completion_tokens", "sum"), wall=("wave_s", "first")
        )
        rows.append(
            {
                "engine": engine,
                "sessions": level,
                "waves": len(per_wave),
                "first token median s": part["first_token_s"].median(),
                "first token p95 s": _p95(part["first_token_s"]),
                "done median s": part["done_s"].median(),
                "done p95 s": _p95(part["done_s"]),
                "decode tok/s": (per_wave["tokens"] / per_wave["wall"]).median(),
                "failed": int((part["error"].notna() | part["first_token_s"].isna()).sum()),
                "no model call": int((part["model_calls"] == 0).sum()),
            }
        )
    table = pd.DataFrame(rows).sort_values(["sessions", "engine"], kind="stable")
    return table.reset_index(drop=True)


def single_session_change(table: pd.DataFrame) -> float | None:
    """The server engine's single-session time to done relative to the worker's (0.05 = 5 %
    slower), the figure that must stay within 10 %; None when either is missing."""
    one = table[table["sessions"] == 1].set_index("engine")["done median s"]
    if not {"worker", "server"} <= set(one.index):
        return None
    return float(one["server"] / one["worker"] - 1)


def figure(table: pd.DataFrame) -> go.Figure:
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=("time to first answer token", "time to done", "aggregate decode"),
    )
    for engine, part in table.groupby("engine", sort=False):
        x = part["sessions"].astype(str)
        for col, (median, p95) in enumerate(
            (("first token median s", "first token p95 s"), ("done median s", "done p95 s")), 1
        ):
            fig.add_bar(
                name=f"{engine}",
                legendgroup=engine,
                showlegend=col == 1,
                x=x,
                y=part[median],
                error_y={"type": "data", "array": part[p95] - part[median], "symmetric": False},
                row=1,
                col=col,
            )
        fig.add_bar(
            name=engine,
            legendgroup=engine,
            showlegend=False,
            x=x,
            y=part["decode tok/s"],
            row=1,
            col=3,
        )
    fig.update_layout(
        title="Concurrent sessions: median, bar to p95", barmode="group", legend_title="engine"
    )
    fig.update_xaxes(title_text="concurrent sessions")
    fig.update_yaxes(title_text="seconds", col=1)
    fig.update_yaxes(title_text="seconds", col=2)
    fig.update_yaxes(title_text="tokens/s", col=3)
    return fig


def write_run(
    frame: pd.DataFrame, settings, engines: tuple[str, ...], waves: int, results_dir: Path
) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    name = settings.profile.name if settings.profile else Path(settings.model).stem
    folder = results_dir / "concurrency" / f"{name}-{stamp}"
    (folder / "figures").mkdir(parents=True, exist_ok=False)
    frame.to_parquet(folder / "sessions.parquet", index=False)
    table = concurrency_table(frame)
    load = os.getloadavg()[0]
    manifest = {
        "model": settings.model_label(),
        "engines": list(engines),
        "slots": settings.engine_slots,
        "waves_per_level": waves,
        "questions": [question(n) for n in range(int(frame["sessions"].max()))],
        "settings": settings_manifest(settings),
        "load_average_at_end": load,
        **provenance(git_revision()),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    script = os.path.relpath(plotly_js(results_dir), folder / "figures")
    figure(table).write_html(folder / "figures" / "concurrency.html", include_plotlyjs=script)
    change = single_session_change(table)
    machine = f"{platform.platform()}, {os.cpu_count()} CPUs, load {load:.1f} at the end"
    text = [
        f"# Concurrent sessions: {settings.model_label()}\n",
        f"Engines {', '.join(engines)} (server: {settings.engine_slots} slots); {waves} wave(s) "
        f"per number of sessions, the engines taking turns; {machine}.\n",
        markdown_table(table),
    ]
    if change is not None:
        text.append(f"\nSingle session, time to done, server against worker: {change:+.1%}.")
    (folder / "summary.md").write_text("\n".join(text) + "\n", encoding="utf-8")
    return folder


def run(
    profile: str | None,
    levels: tuple[int, ...],
    engines: tuple[str, ...],
    waves: int,
    results_dir: Path,
    slots: int | None = None,
) -> Path:
    from docgemma.llm.registry import create_backend

    settings = profile_settings(profile)
    if slots is not None:
        settings = settings.model_copy(update={"engine_slots": slots})
    llms = {
        name: create_backend(settings.model_copy(update={"engine": name, "engine_process": True}))
        for name in engines
    }
    try:
        frame = event_loop.run(measure(settings, llms, levels, waves))
    finally:
        for made in llms.values():
            event_loop.run(made.aclose())
    return write_run(frame, settings, engines, waves, results_dir)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.bench_concurrency")
    parser.add_argument("--model", default=None, help="a profile or GGUF (default: the app's)")
    parser.add_argument("--sessions", default=",".join(map(str, LEVELS)), help="e.g. 1,4,20")
    parser.add_argument("--engines", default=",".join(ENGINES), help="worker, server or both")
    parser.add_argument("--waves", type=int, default=2, help="waves per number of sessions")
    parser.add_argument("--slots", type=int, default=None, help="server slots (default: setting)")
    parser.add_argument("--quick", action="store_true", help="1 and 4 sessions, tiny model")
    parser.add_argument("--results-dir", type=Path, default=Path("experiments/results"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    levels = tuple(int(n) for n in args.sessions.split(","))
    if args.quick:
        args.model, levels, args.waves = args.model or QUICK_PROFILE, (1, 4), 1
    engines = tuple(e.strip() for e in args.engines.split(","))
    if unknown := set(engines) - set(ENGINES):
        parser.error(f"unknown engine(s): {', '.join(sorted(unknown))}")
    if max(levels) > len(TOPICS):
        parser.error(f"at most {len(TOPICS)} sessions (one topic each)")
    folder = run(args.model, levels, engines, args.waves, args.results_dir, args.slots)
    print((folder / "summary.md").read_text())
    print(folder)


if __name__ == "__main__":
    main()

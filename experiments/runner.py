"""Run a suite: pick strategies and cases, run every trial under one ``Caller``, tidy the rows.

``run_suite`` returns the DataFrame; ``run_and_save`` also writes the run folder
(``results.parquet``, ``results.csv``, ``manifest.json``, ``report.md``, figures).
Both accept an existing backend so a notebook or a test can share one loaded model.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pandas as pd

from docgemma.llm.base import LLMBackend
from docgemma.tools.registry import build_registry
from experiments.calls import Caller
from experiments.cases import load_cases
from experiments.journal import Journal
from experiments.run_folder import git_revision, save_run, settings_manifest
from experiments.suites import suite_module
from experiments.trial import PARAMETERS, Context, RunConfig, Strategy, make_backend, run_settings

log = logging.getLogger(__name__)
LEADING = [
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
    "error",
]
R = TypeVar("R")
BUDGETS = ("max_tokens", "thinking_budget")
"""Settings that ``--token-cap`` may lower below what the strategy declares."""


def select_strategies(module: ModuleType, names: list[str] | None) -> list[Strategy]:
    available: dict[str, Strategy] = module.STRATEGIES
    if not names:
        return list(available.values())
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(
            f"unknown strategies for {module.SUITE}: {', '.join(unknown)}; "
            f"valid: {', '.join(available)}"
        )
    return [available[n] for n in names]


def pick_cases(cases: list[Any], n: int | None, stratum: Callable[[Any], str] | None) -> list[Any]:
    """The first ``n`` cases, taken round-robin over strata (expected tool, class) when given.

    A small ``--n`` then still covers every tool or class instead of the first one in the file.
    """
    if n is None or n >= len(cases):
        return list(cases)
    if stratum is None:
        return list(cases[:n])
    groups: dict[str, list[Any]] = {}
    for case in cases:
        groups.setdefault(stratum(case), []).append(case)
    picked: list[Any] = []
    while len(picked) < n:
        for group in groups.values():
            if group and len(picked) < n:
                picked.append(group.pop(0))
    return picked


async def arun_suite(
    suite: str,
    config: RunConfig | dict,
    backend: LLMBackend | None = None,
    *,
    journaled: bool = False,
) -> pd.DataFrame:
    """Run every chosen trial; ``journaled`` writes each finished trial down as it completes
    and skips the trials an interrupted run of the same command already finished."""
    config = _config(suite, config)
    module = suite_module(suite)
    strategies = select_strategies(module, config.strategies)
    # read once, before any trial: the checkout may move on during a long run, and both
    # the journal and the run folder belong to the code that was loaded
    revision, started = git_revision(), datetime.now(UTC)
    owned = backend is None
    backend = backend or make_backend(config)
    ctx: Context | None = None
    try:
        cases = (
            module.load(config)
            if hasattr(module, "load")
            else load_cases(module.CASES, config.data_dir)
        )
        ctx = Context(config=config, cases=cases, registry=build_registry())
        caller = Caller(backend, concurrency=config.concurrency, token_cap=config.token_cap)
        if hasattr(module, "prepare"):
            await module.prepare(ctx, caller)
        plan = [
            (strategy, case)
            for strategy in strategies
            for case in pick_cases(
                [c for c in cases if strategy.applies(c)],
                config.n,
                getattr(module, "stratum", None),
            )
        ]
        log.info(
            "%s: %d trials over %d strategies on %s",
            suite,
            len(plan),
            len(strategies),
            backend.model,
        )
        planned = {(strategy.name, case.id) for strategy, case in plan}
        journal = Journal.for_run(config, backend.model, revision) if journaled else None
        done = journal.finished() if journal else {}
        progress = _Progress(suite, len(plan) - len(done.keys() & planned), journal)
        fresh = await asyncio.gather(
            *[
                progress.track(_trial(strategy, case, caller, ctx))
                for strategy, case in plan
                if (strategy.name, case.id) not in done
            ]
        )
        found = {(row["strategy"], row["case_id"]): row for row in [*done.values(), *fresh]}
        rows = [found[(strategy.name, case.id)] for strategy, case in plan]
    finally:
        for extra in ctx.extras.get("close", []) if ctx else []:
            await extra.aclose()
        if owned:
            await backend.aclose()
    frame = pd.DataFrame(rows)
    if frame.empty:
        frame = pd.DataFrame(columns=LEADING)
    frame = frame[[*LEADING, *[c for c in frame.columns if c not in LEADING]]]
    frame.attrs["run"] = {
        "batched_calls": list(caller.batches),
        "strategies": {s.name: s.description for s in strategies},
        "model": backend.model,
        "backend": backend.name,
        "git_revision": revision,
        "started_at": started.isoformat(),
        "backend_settings": settings_manifest(
            run_settings(config.model_copy(update={"backend": backend.name})),
            model_path=_loaded_path(backend),
        ),
        **ctx.extras.get("report", {}),
    }
    frame.attrs["cases"] = [c.model_dump(mode="json") for c in cases]
    return frame


class _Progress:
    """Logs each finished trial and writes it to the journal, if the run keeps one."""

    def __init__(self, suite: str, total: int, journal: Journal | None) -> None:
        self._suite, self._total, self._journal, self._count = suite, total, journal, 0

    async def track(self, trial: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
        row = await trial
        self._count += 1
        if self._journal:
            self._journal.write(row)
        log.info(
            "%s: trial %d done (%s %s)", self._suite, self._count, row["strategy"], row["case_id"]
        )
        return row


def _loaded_path(backend: LLMBackend) -> str | None:
    path = getattr(backend, "model_path", None)
    return str(path) if path is not None else None


async def _trial(strategy: Strategy, case: Any, caller: Caller, ctx: Context) -> dict[str, Any]:
    row = await strategy.trial(case, caller, ctx)
    settings = {}
    for name in PARAMETERS:
        declared, used = strategy.params.get(name), row.get(name)
        capped = caller.token_cap is not None and name in BUDGETS  # a smoke run's cap wins
        if declared is not None and used is not None and declared != used and not capped:
            raise RuntimeError(f"{strategy.name}: declared {name}={declared} but used {used}")
        settings[name] = declared if declared is not None else used
    return {
        "suite": ctx.config.suite,
        "strategy": strategy.name,
        "case_id": case.id,
        "model": caller.backend.model,
        "backend": caller.backend.name,
        **row,
        **settings,
        "sweep": strategy.sweep,
    }


def run_suite(
    suite: str, config: RunConfig | dict, backend: LLMBackend | None = None
) -> pd.DataFrame:
    """Synchronous entry point; safe inside Jupyter, where an event loop is already running."""
    return run_sync(arun_suite(suite, config, backend))


@dataclass
class RunOutput:
    frame: pd.DataFrame
    folder: Path


def run_and_save(
    suite: str, config: RunConfig | dict, backend: LLMBackend | None = None
) -> RunOutput:
    """Run a suite and write its timestamped results folder."""
    config = _config(suite, config)
    frame = run_sync(arun_suite(suite, config, backend, journaled=True))
    run = frame.attrs["run"]
    folder = save_run(frame, config, suite_module(suite), datetime.fromisoformat(run["started_at"]))
    Journal.for_run(config, run["model"], run["git_revision"]).close()
    return RunOutput(frame, folder)


def run_sync(coro: Coroutine[Any, Any, R]) -> R:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=target)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _config(suite: str, config: RunConfig | dict) -> RunConfig:
    if isinstance(config, RunConfig):
        return config.model_copy(update={"suite": suite})
    return RunConfig.model_validate({**config, "suite": suite})

"""``python -m experiments eval``: every case through the agent, one results folder per profile.

The folder holds ``results.parquet`` (one row per case), ``summary.md`` (per category
and per tool) and ``manifest.json`` (profile, settings, versions, git revision).
The model profile comes from the same setting the app reads (``DOCGEMMA_MODEL``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from docgemma import event_loop
from docgemma.config import Settings
from docgemma.llm.base import LLMBackend
from experiments.evaluation.cases import EvalCase, load_eval_cases
from experiments.evaluation.harness import EvalEnvironment
from experiments.evaluation.scoring import category_table, score
from experiments.report import markdown_table
from experiments.run_folder import git_revision, provenance, settings_manifest
from experiments.runner import pick_cases

log = logging.getLogger(__name__)
DegenerateCheck = Callable[[str, str], bool]
"""(query, answer) → whether the answer is junk."""


def profile_settings(profile: str | None, **overrides: Any) -> Settings:
    """The app's settings (environment and ``.env``) with ``profile`` as ``DOCGEMMA_MODEL``."""
    if profile:
        overrides["model"] = profile
    return Settings(**overrides)


async def evaluate(
    cases: list[EvalCase],
    settings: Settings,
    llm: LLMBackend,
    *,
    classifiers: dict[str, Any] | None = None,
    degenerate: DegenerateCheck | None = None,
    on_row: Callable[[pd.DataFrame], None] | None = None,
) -> pd.DataFrame:
    """One scored row per case; the cases run one after another on one agent.

    ``on_row`` sees the frame so far after every case (a long run keeps what it measured).
    """
    rows = []
    async with EvalEnvironment(settings, llm, classifiers=classifiers) as env:
        for number, case in enumerate(cases, start=1):
            record = await env.run(case)
            junk = degenerate(case.query, record.result.final_response) if degenerate else None
            rows.append(score(case, record, junk))
            log.info(
                "%d/%d %s: route %s, tools [%s], %.1f s",
                number,
                len(cases),
                case.id,
                rows[-1]["route"],
                rows[-1]["tools_called"],
                record.wall_s,
            )
            if on_row is not None:
                on_row(pd.DataFrame(rows))
    return pd.DataFrame(rows)


def summary_markdown(frame: pd.DataFrame, title: str) -> str:
    single = frame[frame["category"] == "single_tool"]
    parts = [
        f"# {title}\n",
        "## By category\n",
        markdown_table(category_table(frame)),
        "\n## Single-tool cases by tool\n",
        markdown_table(category_table(single, by="tool_group")),
    ]
    return "\n".join(parts)


def results_folder(results_dir: Path, model: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = results_dir / "eval" / f"{model.replace('/', '_')}-{stamp}"
    folder.mkdir(parents=True, exist_ok=False)
    return folder


def save(
    frame: pd.DataFrame, settings: Settings, model: str, folder: Path, revision: str | None
) -> Path:
    """Write (or rewrite, as a run goes on) the folder's results, summary and manifest."""
    frame.to_parquet(folder / "results.parquet", index=False)
    (folder / "summary.md").write_text(
        summary_markdown(frame, f"End-to-end evaluation: {model}"), encoding="utf-8"
    )
    manifest = {
        "model": model,
        "cases": len(frame),
        "settings": settings_manifest(settings),
        **provenance(revision),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str))
    return folder


def run_eval(
    profile: str | None, n: int | None, results_dir: Path, *, ids: list[str] | None = None
) -> tuple[pd.DataFrame, Path]:
    """Load the profile's model once, run the (sub)set of cases, write the folder."""
    from docgemma.llm.registry import create_backend

    settings = profile_settings(profile)
    cases = load_eval_cases()
    if ids:
        cases = [c for c in cases if c.id in set(ids)]
    cases = pick_cases(cases, n, lambda c: str(c.category))
    llm = create_backend(settings)
    model = profile or llm.model
    folder = results_folder(results_dir, model)
    revision = git_revision()
    try:
        frame = event_loop.run(
            evaluate(
                cases,
                settings,
                llm,
                degenerate=default_check(),
                on_row=lambda rows: save(rows, settings, model, folder, revision),
            )
        )
    finally:
        event_loop.run(llm.aclose())
    return frame, save(frame, settings, model, folder, revision)


def default_check() -> DegenerateCheck:
    """The agent's own answer check on the answer shown, so the rate reported is measured with
    the code that guards the app."""
    from docgemma.agent.answer_check import is_degenerate
    from docgemma.tools.registry import build_registry

    names = build_registry().names
    return lambda query, answer: is_degenerate(answer, question=query, tool_names=names)

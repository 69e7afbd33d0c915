"""``python -m experiments eval``: the cases and the sessions through the agent, one folder.

``--split dev|test|both`` picks the cases (and sessions) to run; ``--sessions`` adds the
multi-turn sessions, run through the HTTP API. The folder
(``experiments/results/eval/<model>-<UTC time>``) holds ``results.parquet`` (one row per
case), ``sessions.parquet`` (one row per session turn), ``sessions.csv`` (one row per
session), ``summary.md`` (dev and test side by side with the gap, then the tables of each
split), ``figures/*.png`` (one per category) and ``manifest.json`` (profile, settings,
versions, git revision). When a run covers one split only, the summary takes the other
split's rows from the latest earlier run of the same model that has them, and says so.
The model profile comes from the same setting the app reads (``DOCGEMMA_MODEL``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from docgemma import event_loop
from docgemma.config import Settings
from docgemma.llm.base import LLMBackend
from experiments.evaluation.cases import EvalCase, load_eval_cases
from experiments.evaluation.harness import EvalEnvironment
from experiments.evaluation.scoring import score
from experiments.evaluation.session_run import session_table, sessions_on
from experiments.evaluation.sessions import Session, load_sessions
from experiments.evaluation.split_report import SPLITS, save_figures, summary_markdown
from experiments.run_folder import git_revision, provenance, settings_manifest
from experiments.runner import pick_cases

log = logging.getLogger(__name__)
SplitChoice = Literal["dev", "test", "both"]
CASES_FILE = "results.parquet"
TURNS_FILE = "sessions.parquet"


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
    on_row: Callable[[pd.DataFrame], None] | None = None,
) -> pd.DataFrame:
    """One scored row per case; the cases run one after another on one agent.

    ``on_row`` sees the frame so far after every case (a long run keeps what it measured).
    """
    async with EvalEnvironment(settings, llm, classifiers=classifiers) as env:
        return await cases_on(env, cases, on_row)


async def cases_on(
    env: EvalEnvironment,
    cases: list[EvalCase],
    on_row: Callable[[pd.DataFrame], None] | None = None,
) -> pd.DataFrame:
    """One scored row per case, run one after another on ``env``'s agent."""
    rows = []
    for number, case in enumerate(cases, start=1):
        record = await env.run(case)
        rows.append(score(case, record))
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


async def evaluate_all(
    cases: list[EvalCase],
    sessions: list[Session],
    settings: Settings,
    llm: LLMBackend,
    on_row: Callable[[pd.DataFrame], None] | None = None,
    on_session: Callable[[pd.DataFrame], None] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The cases, then the sessions, on one environment (its indexes are built once);
    ``on_row`` gets the case rows so far after each case, ``on_session`` the turn rows so
    far after each session."""
    async with EvalEnvironment(settings, llm) as env:
        frame = await cases_on(env, cases, on_row) if cases else pd.DataFrame()
        turns = await sessions_on(env, sessions, on_session) if sessions else pd.DataFrame()
    return frame, turns


def results_folder(results_dir: Path, model: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = results_dir / "eval" / f"{model.replace('/', '_')}-{stamp}"
    folder.mkdir(parents=True, exist_ok=False)
    return folder


def splits_of(choice: SplitChoice) -> tuple[str, ...]:
    return SPLITS if choice == "both" else (choice,)


def earlier_rows(
    folder: Path, model: str, file: str, split: str
) -> tuple[pd.DataFrame, str | None]:
    """The ``split`` rows of ``file`` in the latest earlier run folder of ``model``."""
    prefix = f"{model.replace('/', '_')}-"
    for earlier in sorted(folder.parent.glob(f"{prefix}*"), reverse=True):
        path = earlier / file
        if earlier == folder or not path.exists():
            continue
        frame = pd.read_parquet(path)
        if "split" in frame and (frame["split"] == split).any():
            return frame[frame["split"] == split], earlier.name
    return pd.DataFrame(), None


def with_other_split(
    frame: pd.DataFrame, folder: Path, model: str, file: str, ran: tuple[str, ...], what: str
) -> tuple[pd.DataFrame, dict[str, str]]:
    """The run's rows plus, for a split it did not run, the latest earlier run's rows."""
    borrowed: dict[str, str] = {}
    parts = [frame]
    for split in SPLITS:
        if split in ran:
            continue
        rows, source = earlier_rows(folder, model, file, split)
        if source is not None:
            parts.append(rows)
            borrowed[f"{split} {what}"] = source
    frames = [p for p in parts if not p.empty]
    return (pd.concat(frames, ignore_index=True) if frames else frame), borrowed


def save(
    cases: pd.DataFrame,
    turns: pd.DataFrame,
    settings: Settings,
    model: str,
    folder: Path,
    revision: str | None,
    ran: tuple[str, ...] = SPLITS,
    *,
    figures: bool = False,
) -> Path:
    """Write (or rewrite, as a run goes on) the folder's tables, summary and manifest."""
    cases.to_parquet(folder / CASES_FILE, index=False)  # the notebooks read it in every run
    if not turns.empty:
        turns.to_parquet(folder / TURNS_FILE, index=False)
        session_table(turns).to_csv(folder / "sessions.csv", index=False)
    shown_cases, borrowed = with_other_split(cases, folder, model, CASES_FILE, ran, "cases")
    shown_turns, more = (
        with_other_split(turns, folder, model, TURNS_FILE, ran, "sessions")
        if not turns.empty
        else (turns, {})
    )
    pictures = save_figures(shown_cases, shown_turns, folder) if figures else []
    (folder / "summary.md").write_text(
        summary_markdown(
            shown_cases,
            shown_turns,
            f"End-to-end evaluation: {model}",
            borrowed=borrowed | more,
            figures=pictures,
        ),
        encoding="utf-8",
    )
    manifest = {
        "model": model,
        "splits": list(ran),
        "cases": len(cases),
        "session_turns": len(turns),
        "borrowed": borrowed | more,
        "settings": settings_manifest(settings),
        **provenance(revision),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str))
    return folder


def pick(
    split: SplitChoice,
    n: int | None,
    ids: list[str] | None,
    with_sessions: bool,
    n_sessions: int | None,
) -> tuple[list[EvalCase], list[Session]]:
    """The cases (``n`` spread over categories) and sessions of the chosen split(s)."""
    ran = splits_of(split)
    cases = [c for c in load_eval_cases() if c.split in ran]
    if ids:
        cases = [c for c in cases if c.id in set(ids)]
    cases = pick_cases(cases, n, lambda c: f"{c.split}/{c.category}")
    sessions: list[Session] = []
    if with_sessions:
        sessions = [s for s in load_sessions() if s.split in ran]
        if ids:
            sessions = [s for s in sessions if s.id in set(ids)]
        sessions = pick_cases(sessions, n_sessions, lambda s: f"{s.split}/{s.theme}")
    return cases, sessions


def run_eval(
    profile: str | None,
    n: int | None,
    results_dir: Path,
    *,
    ids: list[str] | None = None,
    split: SplitChoice = "both",
    sessions: bool = False,
    n_sessions: int | None = None,
) -> tuple[pd.DataFrame, Path]:
    """Load the profile's model once, run the cases and sessions, write the folder."""
    from docgemma.llm.registry import create_backend

    settings = profile_settings(profile)
    cases, chosen = pick(split, n, ids, sessions, n_sessions)
    llm = create_backend(settings)
    model = profile or settings.model  # the profile name, as the app and earlier runs use it
    folder = results_folder(results_dir, model)
    revision = git_revision()
    ran = splits_of(split)
    so_far = {"cases": pd.DataFrame(), "turns": pd.DataFrame()}

    def keep(what: str) -> Callable[[pd.DataFrame], None]:
        """Saves the folder after every case and every session: a stopped run keeps its rows."""

        def saved(rows: pd.DataFrame) -> None:
            so_far[what] = rows
            save(so_far["cases"], so_far["turns"], settings, model, folder, revision, ran)

        return saved

    try:
        frame, turns = event_loop.run(
            evaluate_all(
                cases, chosen, settings, llm, on_row=keep("cases"), on_session=keep("turns")
            )
        )
    finally:
        event_loop.run(llm.aclose())
    return frame, save(frame, turns, settings, model, folder, revision, ran, figures=True)

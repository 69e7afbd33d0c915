"""The run folder: results, a manifest that makes the run reproducible, the report, figures.

``save_run`` writes ``<results_dir>/<suite>/<UTC timestamp>/`` (``results.parquet``,
``results.csv``, dataset folders, ``manifest.json``, ``report.md``, ``figures/``) and
``load_run`` reads one back.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from docgemma.config import Settings
from experiments import figures
from experiments.report import key_order_violations, render_report
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
    "model",
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


def package_versions() -> dict[str, str]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def git_revision() -> str | None:
    """The checkout's commit, with ``+dirty`` when files differ from it (read-only git calls).

    Run folders under ``experiments/results`` do not count: earlier runs' outputs would
    otherwise mark every later run of an unchanged checkout as dirty.
    """
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
            ["git", "status", "--porcelain", "--", ".", ":!experiments/results"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{rev}+dirty" if dirty else rev


def provenance(revision: str | None) -> dict[str, Any]:
    """What a run was made with and where: code revision, packages, machine, time written.

    ``revision`` is read when the run starts (``git_revision``): the checkout may move on
    while a long run goes, and the figures belong to the code that was loaded.
    """
    return {
        "git_revision": revision,
        "packages": package_versions(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "written_at": datetime.now(UTC).isoformat(),
    }


def settings_manifest(settings: Settings, model_path: str | None = None) -> dict[str, Any]:
    """The run's resolved backend settings; ``model_path`` is the file the backend really loaded."""
    resolved = settings.model_dump(mode="json", include=set(RUN_SETTINGS))
    return {**{name: resolved[name] for name in RUN_SETTINGS}, "model_path": model_path}


def save_run(
    frame: pd.DataFrame, config: RunConfig, module: ModuleType, started: datetime | None = None
) -> Path:
    """Write ``<results_dir>/<suite>/<UTC timestamp>/`` for ``module``'s run and return it."""
    stamp = (started or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S%fZ")
    folder = Path(config.results_dir) / config.suite / stamp
    folder.mkdir(parents=True, exist_ok=False)
    frame.to_parquet(folder / "results.parquet", index=False)
    frame.to_csv(folder / "results.csv", index=False)
    save_datasets(frame, folder)
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
        **provenance(info["git_revision"] if "git_revision" in info else git_revision()),
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


def save_datasets(frame: pd.DataFrame, folder: Path) -> None:
    """The run as Hugging Face dataset folders: ``dataset/`` (results) and ``cases/``.

    ``datasets.load_from_disk(folder / "dataset")`` loads a run back; ``push_to_hub``
    on the loaded dataset publishes it (see docs/evaluation.md).
    """
    from datasets import Dataset

    from experiments.cases import records_dataset

    Dataset.from_pandas(frame, preserve_index=False).save_to_disk(str(folder / "dataset"))
    if frame.attrs.get("cases"):
        records_dataset(frame.attrs["cases"]).save_to_disk(str(folder / "cases"))


def load_run(folder: Path | str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """A saved run: its results and its manifest."""
    folder = Path(folder)
    frame = pd.read_parquet(folder / "results.parquet")
    return frame, json.loads((folder / "manifest.json").read_text(encoding="utf-8"))

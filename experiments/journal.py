"""Finished trials written down as they complete, so an interrupted run resumes.

A triage or evaluation-sized run on the 2-core CPU takes hours; a session that ends or
a machine that restarts would otherwise lose every trial, since the run folder is only
written at the end. Each finished trial is appended as one JSON line to a journal named
after what decides the results (suite, model, configuration, code revision); running the
same command again skips the trials already in it. The journal is deleted once the run
folder is written. A different revision or configuration gets a journal of its own, so
rows of different code are never mixed.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from experiments.trial import RunConfig

log = logging.getLogger(__name__)
TrialKey = tuple[str, str]
"""(strategy, case id): one trial of a run."""
_NOT_DECISIVE = {"results_dir", "concurrency"}


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def for_run(cls, config: RunConfig, model: str, revision: str | None) -> Journal:
        """The journal of a run of ``config`` on ``model`` with the code of ``revision``
        (``run_folder.git_revision``, read when the run starts)."""
        decisive = config.model_dump(mode="json", exclude=_NOT_DECISIVE)
        blob = json.dumps([decisive, model, revision], sort_keys=True)
        digest = hashlib.sha256(blob.encode()).hexdigest()[:12]
        stem = Path(model).stem.replace(" ", "_")
        return cls(Path(config.results_dir) / config.suite / f".trials-{stem}-{digest}.jsonl")

    def finished(self) -> dict[TrialKey, dict[str, Any]]:
        """Rows already written; a line cut short by an interruption is ignored."""
        if not self.path.exists():
            return {}
        rows: dict[TrialKey, dict[str, Any]] = {}
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            rows[(row["strategy"], row["case_id"])] = row
        if rows:
            log.info("resuming from %s: %d trials already done", self.path, len(rows))
        return rows

    def write(self, row: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")

    def close(self) -> None:
        self.path.unlink(missing_ok=True)

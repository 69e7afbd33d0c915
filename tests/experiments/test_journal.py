"""An interrupted run resumes from its journal instead of starting again."""

from __future__ import annotations

import json
from datetime import datetime

import pandas as pd
import pytest

from docgemma.llm.scripted import ScriptedBackend
from experiments.journal import Journal
from experiments.run_folder import git_revision
from experiments.runner import run_and_save
from experiments.trial import RunConfig

CONFIG = {"n": 4, "strategies": ["baseline"], "backend": "scripted"}


class Interrupted(Exception):
    pass


def _responder(stop_after: int | None):
    """Answers tool selection; raises once ``stop_after`` stage-1 calls were made."""
    seen = {"stage1": 0}

    def respond(messages, schema):
        if schema is None:
            return "free text"
        if "tool_name" in schema.model_fields:
            seen["stage1"] += 1
            if stop_after is not None and seen["stage1"] > stop_after:
                raise Interrupted
            return {"tool_name": "check_drug_safety"}
        return {name: "x" for name, info in schema.model_fields.items() if info.is_required()}

    return respond, seen


def test_a_rerun_skips_the_trials_the_interrupted_run_finished(tmp_path):
    config = {**CONFIG, "results_dir": tmp_path}
    respond, _ = _responder(stop_after=2)
    with pytest.raises(Interrupted):
        run_and_save("tool_selection", config, ScriptedBackend(responder=respond))
    journal = Journal.for_run(
        RunConfig.model_validate({**config, "suite": "tool_selection"}),
        ScriptedBackend().model,
        git_revision(),
    )
    assert len(journal.finished()) == 2

    respond, seen = _responder(stop_after=None)
    out = run_and_save("tool_selection", config, ScriptedBackend(responder=respond))
    assert seen["stage1"] == 2, "only the two unfinished trials run again"
    assert list(out.frame["case_id"]) == list(
        pd.read_parquet(out.folder / "results.parquet")["case_id"]
    )
    assert len(out.frame) == 4 and out.frame["case_id"].is_unique
    assert not journal.path.exists(), "the journal goes once the run folder is written"


def test_a_line_cut_short_is_ignored_and_other_configurations_keep_their_own(tmp_path):
    config = RunConfig(suite="tool_selection", results_dir=tmp_path, n=4)
    journal = Journal.for_run(config, "model-a", "rev-1")
    journal.write({"strategy": "baseline", "case_id": "c1", "parse_ok": True})
    with journal.path.open("a") as handle:
        handle.write('{"strategy": "baseline", "case_')
    assert list(journal.finished()) == [("baseline", "c1")]
    assert Journal.for_run(config, "model-b", "rev-1").path != journal.path
    assert Journal.for_run(config, "model-a", "rev-2").path != journal.path
    assert (
        Journal.for_run(config.model_copy(update={"n": 5}), "model-a", "rev-1").path != journal.path
    )
    assert Journal.for_run(
        config.model_copy(update={"concurrency": 4}), "model-a", "rev-1"
    ).path == (journal.path)


def test_a_commit_made_during_a_run_changes_neither_its_folder_nor_its_journal(
    tmp_path, monkeypatch
):
    """The checkout moves on while a long run goes: the folder records the code that was
    loaded, is named after the start, and the run's own journal is the one removed."""
    monkeypatch.setattr("experiments.runner.git_revision", lambda: "rev-at-start")
    monkeypatch.setattr("experiments.run_folder.git_revision", lambda: "rev-after-a-commit")
    respond, _ = _responder(stop_after=None)
    out = run_and_save(
        "tool_selection", {**CONFIG, "results_dir": tmp_path}, ScriptedBackend(responder=respond)
    )
    manifest = json.loads((out.folder / "manifest.json").read_text())
    assert manifest["git_revision"] == "rev-at-start"
    started = datetime.fromisoformat(manifest["started_at"])
    assert out.folder.name == started.strftime("%Y%m%dT%H%M%S%fZ"), "named after the start"
    assert started < datetime.fromisoformat(manifest["written_at"])
    assert not list((tmp_path / "tool_selection").glob(".trials-*")), "no journal left behind"

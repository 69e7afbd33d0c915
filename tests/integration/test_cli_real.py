"""``python -m docgemma ask --json`` as a user runs it: a fresh process that loads the real
model, starts the embedded EHR in its data folder and prints one JSON object."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from prebuilt_indexes import seed_indexes

from .conftest import TOOL_NAMES

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.real_model
def test_ask_json_on_the_real_stack(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCGEMMA_")}
    env.update(DOCGEMMA_DATA_DIR=str(tmp_path / "var"), DOCGEMMA_OFFLINE="true")
    seed_indexes(tmp_path / "var")  # as set-up leaves the data folder
    done = subprocess.run(
        [sys.executable, "-m", "docgemma", "ask", "What are the symptoms of pneumonia?", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)  # the whole output is one JSON object
    assert isinstance(out, dict)
    assert out["intent"] == "DIRECT" and out["tool_calls"] == []
    assert out["final_response"].strip()
    assert not any(name in out["final_response"] for name in TOOL_NAMES)
    # the cited answer (a second call if a statement failed its check); routing came from
    # the embedding classifier
    assert out["model_calls"] in (1, 2)
    assert "Wrote the answer" in [step["title"] for step in out["timeline"]]
    assert out["pending_approval"] is None and out["errors"] == []
    assert (tmp_path / "var" / "fhir.db").is_file()  # the embedded EHR ran in the data folder
    assert (tmp_path / "var" / "checkpoints.sqlite").is_file()

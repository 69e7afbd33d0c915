"""The web app's wiring that no browser test sees."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from live_app import load_app_module

from docgemma.config import Settings


def test_app_and_cli_share_one_embedded_ehr(tmp_path: Path) -> None:
    """A write approved in the app must be visible to ``python -m docgemma ask`` and back."""
    settings = Settings(data_dir=tmp_path, offline=True)
    load_app_module().create_app(settings, agent_factory=lambda s, e: None)
    assert settings.embedded_fhir_db.parent == tmp_path
    assert settings.embedded_fhir_db.is_file()
    assert not (tmp_path / "ehr.sqlite").exists()


def test_the_app_module_loads_without_the_agent_graph_model_or_chroma() -> None:
    """The start-up goal: the page is served before the heavy parts load (they load
    in the background once it is up). In a fresh interpreter, so no other test's import
    hides one."""
    heavy = ["langgraph", "chromadb", "llama_cpp", "docgemma.agent.service", "sklearn"]
    root = Path(__file__).resolve().parents[2]
    code = f"import sys, app\nprint(sorted(m for m in {heavy!r} if m in sys.modules))\n"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout

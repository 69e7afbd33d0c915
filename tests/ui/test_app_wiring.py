"""The web app's wiring that no browser test sees."""

from __future__ import annotations

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

"""The documentation stays true: a short README, a configuration reference generated from
``docgemma/config.py``, and relative links that lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docgemma import config_doc
from docgemma.config import Settings

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CONFIGURATION = ROOT / "docs" / "configuration.md"
MAX_README_LINES = 300
"""The README is for users; the reference, design and measurements live in docs/."""


def test_the_readme_stays_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, (
        f"README.md has {len(lines)} lines (at most {MAX_README_LINES}): move detail to docs/"
    )


def test_the_configuration_reference_is_what_the_generator_writes() -> None:
    assert CONFIGURATION.read_text(encoding="utf-8") == config_doc.render(), (
        "docs/configuration.md is out of date: run python -m docgemma.config_doc"
    )


def test_every_setting_is_in_the_configuration_reference() -> None:
    text = CONFIGURATION.read_text(encoding="utf-8")
    missing = [
        variable
        for name, field in Settings.model_fields.items()
        for variable in config_doc.variables(name, field)
        if f"`{variable}`" not in text
    ]
    assert not missing, f"settings missing from docs/configuration.md: {missing}"
    assert len(Settings.model_fields) > 50  # the reference is read from the real settings


def test_the_check_mode_reports_drift(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert config_doc.main(["--check"]) == 0
    stale = tmp_path / "configuration.md"
    stale.write_text(config_doc.render().replace("DOCGEMMA_OFFLINE", "DOCGEMMA_OFFLINE_X"))
    monkeypatch.setattr(config_doc, "OUTPUT", stale)
    assert config_doc.main(["--check"]) == 1


def test_defaults_are_written_without_this_machine_s_paths() -> None:
    text = CONFIGURATION.read_text(encoding="utf-8")
    assert str(Path.home()) not in text and str(ROOT) not in text
    assert "`~/.cache/docgemma`" in text and "`data/profiles.yaml`" in text


@pytest.mark.parametrize(
    "document",
    [
        "README.md",
        "CHANGELOG.md",
        "SECURITY.md",
        *(f"docs/{p.name}" for p in sorted((ROOT / "docs").glob("*.md"))),
    ],
)
def test_relative_links_lead_to_files_that_exist(document: str) -> None:
    path = ROOT / document
    text = path.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    broken = [
        target
        for target in targets
        if not re.match(r"[a-z]+:|#", target) and not (path.parent / target.split("#")[0]).exists()
    ]
    assert not broken, f"{document} links to missing files: {broken}"


def test_the_license_is_the_one_the_project_declares() -> None:
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    assert 'license = { text = "Apache-2.0" }' in (ROOT / "pyproject.toml").read_text()
    assert "license: apache-2.0" in (ROOT / "space.yaml").read_text()


def test_the_space_card_is_in_space_yaml_not_atop_the_readme() -> None:
    """The Space's README is the card from space.yaml between --- lines, then README.md."""
    import yaml

    card = yaml.safe_load((ROOT / "space.yaml").read_text(encoding="utf-8"))
    assert card["sdk"] == "docker" and card["app_port"] == 7860
    assert (ROOT / "Dockerfile").is_file() and card["license"] == "apache-2.0"
    assert README.read_text(encoding="utf-8").startswith("# DocGemma")

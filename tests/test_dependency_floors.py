"""The floors run's constraints come from pyproject.toml's own lower bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgemma.dependency_floors import CHECKED_AT_FLOOR, constraints, floors


def _pyproject(tmp_path: Path, *dependencies: str) -> Path:
    listed = "".join(f'    "{line}",\n' for line in dependencies)
    path = tmp_path / "pyproject.toml"
    path.write_text(f'[project]\nname = "x"\ndependencies = [\n{listed}]\n', encoding="utf-8")
    return path


def test_every_checked_package_is_held_at_the_repository_floor() -> None:
    pinned = dict(line.split("==") for line in constraints().split())
    assert list(pinned) == list(CHECKED_AT_FLOOR)
    assert all(version[0].isdigit() for version in pinned.values())


def test_a_bound_is_read_through_extras_markers_and_upper_bounds(tmp_path: Path) -> None:
    names = [f"{name}>=1.{n}" for n, name in enumerate(CHECKED_AT_FLOOR)]
    names[0] = "Gradio[oauth]>=6.24,<8; python_version >= '3.11'"
    names[-1] = "fhir_resources >= 8.0"
    found = floors(_pyproject(tmp_path, "numpy>=1.26", *names))
    assert found["gradio"] == "6.24"
    assert found["fhir.resources"] == "8.0"
    assert found["langgraph"] == "1.1"


def test_a_checked_package_without_a_floor_is_an_error(tmp_path: Path) -> None:
    names = [f"{name}>=1.0" for name in CHECKED_AT_FLOOR if name != "chromadb"]
    with pytest.raises(ValueError, match="chromadb"):
        floors(_pyproject(tmp_path, *names, "chromadb"))

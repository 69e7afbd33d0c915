"""The suite runs from a plain clone: no test reads a file beside the repository."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from repo_guard import OPENED_OUTSIDE, REPO, guarded_zone

SIBLING = REPO.parent / "shared" / "fixtures" / "README.md"


@pytest.mark.skipif(
    not guarded_zone()[0], reason="the repository sits at the root or in the temp folder"
)
def test_opening_a_file_beside_the_repository_fails(tmp_path: Path) -> None:
    before = len(OPENED_OUTSIDE)
    with pytest.raises(PermissionError, match="outside the repository"):
        SIBLING.open(encoding="utf-8")
    assert OPENED_OUTSIDE[before:] == [str(SIBLING)]
    del OPENED_OUTSIDE[before:]  # this test's own attempt is not a finding
    (tmp_path / "inside.txt").write_text("temporary files stay allowed")


@pytest.mark.parametrize(
    ("repo", "zone", "temp_allowed"),
    [
        ("/tmp/c14/docgemma", "/tmp/c14/", False),  # the temp folder holds the whole zone
        ("/work/main", "/work/", True),
        ("/tmp/docgemma", "", False),  # straight in the temp folder: nothing to guard
    ],
)
def test_the_guarded_zone_is_the_parent_folder_wherever_the_clone_is(
    repo: str, zone: str, temp_allowed: bool
) -> None:
    got_zone, allowed = guarded_zone(Path(repo), Path("/tmp"))
    assert got_zone == zone
    assert ("/tmp/" in allowed) is temp_allowed
    assert not any(zone.startswith(place) for place in allowed)


def test_no_test_names_a_path_above_the_repository() -> None:
    """Static twin of the run-time guard: no ``parents[N]`` that climbs out of the repo."""
    climbing = []
    for path in (REPO / "tests").rglob("*.py"):
        depth = len(path.relative_to(REPO).parts) - 1  # parents[depth] is the repo
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "parents"
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, int)
                and node.slice.value > depth
            ):
                climbing.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert climbing == []


def test_recorded_fixtures_live_in_the_repository() -> None:
    fixtures = REPO / "tests" / "fixtures"
    for service in ("openfda", "europepmc", "clinicaltrials"):
        assert any((fixtures / service).glob("*.json")), service
    assert (fixtures / "README.md").is_file()

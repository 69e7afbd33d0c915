"""A run-time guard: the test suite may not open files beside the repository.

Sibling folders (a design repo, shared fixtures) exist on some machines and not
others; a test that reads them passes there and fails for everyone else.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OPENED_OUTSIDE: list[str] = []


def guarded_zone(repo: Path = REPO, temp: Path | None = None) -> tuple[str, tuple[str, ...]]:
    """The repository's parent folder, less the repository and the places Python itself uses.

    Nothing is guarded for a clone at the root or straight in the temp folder: there
    every neighbour is a system folder or another program's temp file, which tests
    (pytest's ``tmp_path``, Gradio's uploads) must be free to use. An allowed place that
    holds the whole zone (the temp folder, for a clone in a folder of its own inside it)
    is left out: as an exception it would let every read beside the repository through.
    """
    parent = repo.parent
    temp = (temp or Path(tempfile.gettempdir())).resolve()
    if parent in (Path(parent.anchor), temp):
        return "", ()
    zone = str(parent) + os.sep
    places = {repo, Path(sys.prefix), Path(sys.base_prefix), temp}
    allowed = (str(p.resolve()) + os.sep for p in places)
    return zone, tuple(a for a in allowed if not zone.startswith(a))


def refuse_reads_beside_the_repo(zone: str, allowed: tuple[str, ...]):
    def hook(event: str, args: tuple) -> None:
        if event != "open" or not zone or isinstance(args[0], int):
            return
        path = os.path.abspath(os.fsdecode(args[0])) + os.sep
        if path.startswith(zone) and not path.startswith(allowed):
            OPENED_OUTSIDE.append(path.rstrip(os.sep))
            raise PermissionError(f"tests must not open files outside the repository: {path}")

    return hook

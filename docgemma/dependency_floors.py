"""The lowest versions ``pyproject.toml`` admits, for the packages whose API the code calls.

A lower bound is a promise: ``pip`` may install exactly that version beside everything
else, and the app must then work. The promise matters for the few packages the code
calls deeply (the page, the graph and its checkpoint savers, the vector store, the FHIR
models); the others are used through small, long-stable surfaces.

``python -m docgemma.dependency_floors`` prints a pip constraints file that holds each of
those packages at its floor; ``make floors`` installs the project under it in its own
virtualenv and runs the unit tier there. Standard library only, so it runs before the
project is installed.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"

CHECKED_AT_FLOOR = (
    "gradio",
    "langgraph",
    "langgraph-checkpoint",
    "langgraph-checkpoint-sqlite",
    "langgraph-checkpoint-postgres",
    "chromadb",
    "fhir.resources",
)
"""Packages held at their lower bound by the floors run. llama-cpp-python is pinned
exactly, so it has no floor to check."""

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;]*)")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def floors(pyproject: Path = PYPROJECT) -> dict[str, str]:
    """Each checked package's lower bound (``>=``) in the project's runtime dependencies."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    wanted = {_canonical(name): name for name in CHECKED_AT_FLOOR}
    found: dict[str, str] = {}
    for line in project["dependencies"]:
        match = _REQUIREMENT.match(line)
        if match is None:
            continue
        name, specifiers = match.groups()
        if _canonical(name) not in wanted:
            continue
        bounds = re.findall(r">=\s*([0-9][0-9A-Za-z.]*)", specifiers)
        if len(bounds) != 1:
            raise ValueError(f"{name} needs exactly one lower bound in pyproject.toml: {line!r}")
        found[wanted[_canonical(name)]] = bounds[0]
    missing = sorted(set(wanted.values()) - set(found))
    if missing:
        raise ValueError(f"no lower bound in pyproject.toml for {', '.join(missing)}")
    return {name: found[name] for name in CHECKED_AT_FLOOR}


def constraints(pyproject: Path = PYPROJECT) -> str:
    """A pip constraints file pinning every checked package to its floor."""
    lines = [f"{name}=={version}" for name, version in floors(pyproject).items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m docgemma.dependency_floors")
    parser.add_argument("--output", type=Path, help="write the constraints here (default: print)")
    args = parser.parse_args(argv)
    text = constraints()
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()

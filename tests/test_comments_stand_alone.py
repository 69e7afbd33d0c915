"""Comments and docstrings of the core package stand alone.

They say what the code does and why in the repository's own terms. The design documents
the project started from, and the issues and sessions it was built in, are not in the
repository: a citation of one ("seed 002 §4", "issue 9") tells a reader nothing. Where a
design choice comes from a design document, ``docs/design.md`` says so, once.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CITATION = re.compile(r"\bseed[ -]?00\d|§|\bissues? #?\d+\b", re.IGNORECASE)
"""A design document ("seed 002"), a section sign, or an issue number ("issue 9")."""


def documentation(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and every string statement (docstrings, attribute
    docstrings) in ``source``; string values the code uses are not read."""
    found = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        for statement in body if isinstance(body, list) else []:
            if (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Constant)
                and isinstance(statement.value.value, str)
            ):
                found.append((statement.lineno, statement.value.value))
    return found


def citations(path: Path) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{line}: {match.group(0)!r}"
        for line, text in documentation(path.read_text(encoding="utf-8"))
        if (match := CITATION.search(text))
    ]


def test_the_core_package_cites_no_design_document_or_issue() -> None:
    paths = [*sorted((ROOT / "docgemma").rglob("*.py")), ROOT / "app.py"]
    found = [hit for path in paths for hit in citations(path)]
    assert not found, "say what the code does and why instead:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "cited"),
    [
        ('"""The router (seed 002 §4)."""\n', True),
        ("x = 1  # measured in issue 9\n", True),
        ("def f():\n    '''As Issue 10 item 2 says.'''\n", True),
        ('"""Sampling seed, for reproducible runs; seed 0 by default."""\n', False),
        ('PROMPT = "seed 002 §4"  # a value the code uses, not documentation\n', False),
        ('"""The seed bundles are loaded once."""\n', False),
    ],
)
def test_what_counts_as_a_citation(source: str, cited: bool) -> None:
    hits = [t for _, t in documentation(source) if CITATION.search(t)]
    assert bool(hits) is cited

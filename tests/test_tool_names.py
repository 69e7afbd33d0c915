"""One source of truth per fact: a tool's name lives in its own module, a failure's wording in
the one message table.

An ast walk over every string constant of the core package and the experiments (f-string
parts included); the tests are exempt, they may name tools and quote messages to check them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from docgemma.tools.outcomes import MESSAGES
from docgemma.tools.registry import build_registry

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("docgemma", "experiments")
TABLE = ROOT / "docgemma" / "tools" / "outcomes.py"
MIN_FRAGMENT = 15
"""Shorter pieces of a message ("The ", " in the ") are ordinary words, not its wording."""


def sources() -> Iterator[Path]:
    for folder in SCANNED:
        yield from sorted((ROOT / folder).rglob("*.py"))


@cache
def string_constants(path: Path) -> tuple[tuple[int, str], ...]:
    return tuple(
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def declared_names(path: Path) -> set[str]:
    """Tool names a module declares: the ``name=`` of each ``ToolSpec(...)`` it builds."""
    return {
        keyword.value.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ToolSpec"
        for keyword in node.keywords
        if keyword.arg == "name" and isinstance(keyword.value, ast.Constant)
    }


def owners() -> dict[str, Path]:
    found = {
        name: path
        for path in sorted((ROOT / "docgemma" / "tools").glob("*.py"))
        for name in declared_names(path)
    }
    assert set(found) == set(build_registry().names), "every tool declares its name in a ToolSpec"
    return found


def test_each_tool_name_is_written_only_in_its_own_tool_module() -> None:
    owner = owners()
    stray = [
        f"{path.relative_to(ROOT)}:{line} names {text!r} (owned by {owner[text].name})"
        for path in sources()
        for line, text in string_constants(path)
        if text in owner and path != owner[text]
    ]
    assert not stray, "ask the registry (a ToolSpec field) instead:\n" + "\n".join(stray)


def fragments(template: str) -> list[str]:
    """The fixed wording of a message: its text between placeholders, long pieces only."""
    return [p for p in re.split(r"\{\w+\}", template) if len(p.strip()) >= MIN_FRAGMENT]


def test_error_messages_are_worded_only_in_the_message_table() -> None:
    wording = {f: kind for kind, template in MESSAGES.items() for f in fragments(template)}
    assert len(wording) >= len(MESSAGES) - 1  # every message but the shortest has a long piece
    copies = [
        f"{path.relative_to(ROOT)}:{line} repeats the {kind} message: {fragment!r}"
        for path in sources()
        if path != TABLE
        for line, text in string_constants(path)
        for fragment, kind in wording.items()
        if fragment in text
    ]
    assert not copies, "use docgemma.tools.outcomes.error_message:\n" + "\n".join(copies)


def test_the_scan_sees_names_and_messages_where_they_are() -> None:
    """The checks above would pass vacuously if the scan found nothing; it finds the owners."""
    drug_safety = ROOT / "docgemma" / "tools" / "drug_safety.py"
    assert "check_drug_safety" in {text for _, text in string_constants(drug_safety)}
    table = " ".join(text for _, text in string_constants(TABLE))
    assert all(f in table for template in MESSAGES.values() for f in fragments(template))

"""Recorded public API responses and the design's expected texts, kept inside the repository.

Tests read these instead of live services; ``fixtures/README.md`` says where each
file came from. Nothing here reads outside the repository.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def recorded(service: str, name: str) -> Any:
    """One recorded response body, e.g. ``recorded("openfda", "error_not_found_404.json")``."""
    return json.loads((FIXTURES / service / name).read_text(encoding="utf-8"))


def recorded_text(service: str, name: str) -> str:
    """One recorded response body that is not JSON (MedlinePlus answers in XML)."""
    return (FIXTURES / service / name).read_text(encoding="utf-8")


def seed_tool_descriptions() -> dict[str, str]:
    """The design's tool list: name → full description, line breaks folded."""
    text = (FIXTURES / "seed002_tool_descriptions.txt").read_text(encoding="utf-8")
    found = {}
    for entry in re.split(r"\n\s*\n", text):
        match = re.match(r"\s*- (\w+)\(.*?\) — (.*)", " ".join(entry.split()))
        if match:
            found[match.group(1)] = match.group(2)
    return found

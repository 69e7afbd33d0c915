"""The suites, one module each, found by name.

A suite module defines ``SUITE``, ``STRATEGIES`` and ``PRIMARY_METRICS``, and may define
``CASES`` or ``load(config)`` (its cases), ``prepare(ctx, caller)``, ``stratum(case)``
(round-robin key for ``--n``), ``DERIVED`` and ``CURVES`` (extra metrics and sweep
plots), and the hooks ``report_sections(frame) -> list[str]`` (markdown appended to the
report) and ``figures(frame) -> dict[str, Figure | None]`` (figures beside the shared ones).
The shared runner, report and figure code read these and never branch on a suite's name.
"""

from __future__ import annotations

import importlib
from types import ModuleType

SUITES = (
    "thinking",
    "tool_selection",
    "field_order",
    "temperature",
    "routing",
    "synthesis",
    "classifiers",
    "knowledge",
    "triage",
    "retrieval",
    "entity_hints",
)


def suite_module(suite: str) -> ModuleType:
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; valid suites: {', '.join(SUITES)}")
    return importlib.import_module(f"{__name__}.{suite}")

"""How much one request may ask of the embedded FHIR server; the numbers are settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_JSON_DEPTH = 64
"""FHIR resources nest a dozen levels deep; thousands of levels is an attack on the parser."""
MAX_OFFSET_DIGITS = 9


@dataclass(frozen=True)
class ServerLimits:
    max_body_bytes: int
    max_bundle_entries: int
    max_search_values: int
    max_count: int

    @classmethod
    def from_settings(cls, settings: Any) -> ServerLimits:
        return cls(
            max_body_bytes=settings.fhir_max_body_bytes,
            max_bundle_entries=settings.fhir_max_bundle_entries,
            max_search_values=settings.fhir_max_search_values,
            max_count=settings.fhir_max_count,
        )


def json_depth_exceeds(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when ``value`` nests deeper than ``limit``; iterative, so it cannot overflow."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return False

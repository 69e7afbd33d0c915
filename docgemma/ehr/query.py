"""Turn FHIR search query parameters into SQL clauses over the search index.

Repeated parameters are ANDed, comma-separated values ORed, as in the FHIR spec.
Unknown parameters are rejected (strict handling) so a typo never silently returns
every resource of a type.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from docgemma.ehr.errors import FHIRError
from docgemma.ehr.limits import MAX_OFFSET_DIGITS, ServerLimits
from docgemma.ehr.search_params import SORTABLE, SearchParam, fold, params_for
from docgemma.ehr.store import Clause

_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$")
_PREFIXES = ("eq", "ge", "le", "gt", "lt")
_IGNORED = {"_format", "_pretty", "_total", "_elements", "_summary"}
_ASCII_INT = re.compile(rf"[0-9]{{1,{MAX_OFFSET_DIGITS}}}")


def _like_literal(text: str) -> str:
    """``text`` for a LIKE pattern (with ``ESCAPE '\\'``): its % and _ match only themselves."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@dataclass
class SearchQuery:
    clauses: list[Clause] = field(default_factory=list)
    sort: tuple[str, bool] | None = None
    count: int | None = None
    offset: int = 0


def _index_clause(resource_type: str, name: str, condition: str, args: list[str]) -> Clause:
    return (
        "r.id IN (SELECT id FROM search_index WHERE type = ? AND param = ? AND ("
        + condition
        + "))",
        [resource_type, name, *args],
    )


def _value_condition(
    name: str, param: SearchParam, modifier: str | None, value: str
) -> tuple[str, list[str]]:
    if param.kind == "string":
        text = fold(value)  # the index holds folded strings, so :exact ignores case and accents too
        if modifier == "exact":
            return "value = ?", [text]
        return "value LIKE ? ESCAPE '\\'", [_like_literal(text) + "%"]
    if param.kind == "token":
        if value.startswith("|"):
            return "value = ?", [value[1:]]
        return "value = ?", [value]
    if param.kind == "reference":
        if "/" in value:
            return "value = ?", [value]
        if name == "patient":
            return "value = ?", [f"Patient/{value}"]
        return "value LIKE ? ESCAPE '\\'", [f"%/{_like_literal(value)}"]
    prefix = value[:2] if value[:2] in _PREFIXES else "eq"
    date = value[2:] if value[:2] in _PREFIXES else value
    if not _DATE.match(date):
        raise FHIRError(400, "invalid", f"Invalid date {value!r} for parameter {name!r}")
    ceiling = date + "\uffff"
    return {
        "eq": ("(value >= ? AND value <= ?)", [date, ceiling]),
        "ge": ("value >= ?", [date]),
        "gt": ("value > ?", [ceiling]),
        "le": ("value <= ?", [ceiling]),
        "lt": ("value < ?", [date]),
    }[prefix]


def _int(name: str, value: str) -> int:
    """ASCII digits only (``str.isdigit`` also takes '²' and '٣'), and few enough for SQLite."""
    if not _ASCII_INT.fullmatch(value):
        raise FHIRError(
            400,
            "invalid",
            f"Parameter {name} must be a non-negative integer of at most "
            f"{MAX_OFFSET_DIGITS} digits, got {value[:40]!r}",
        )
    return int(value)


def parse_search(
    resource_type: str, items: Iterable[tuple[str, str]], limits: ServerLimits
) -> SearchQuery:
    """Parse (name, value) query pairs into a :class:`SearchQuery`; raises ``FHIRError`` 400.

    At most ``limits.max_search_values`` values in all (each comma-separated value
    counts), and ``_count`` is capped at ``limits.max_count``.
    """
    known = params_for(resource_type)
    query = SearchQuery()
    values = 0
    for key, value in items:
        if key in _IGNORED:
            continue
        if key == "_count":
            query.count = min(_int(key, value), limits.max_count)
        elif key == "_offset":
            query.offset = _int(key, value)
        elif key == "_sort":
            descending = value.startswith("-")
            sort_param = value.lstrip("-")
            if sort_param not in SORTABLE or (
                sort_param not in known and sort_param != "_lastUpdated"
            ):
                raise FHIRError(
                    400, "not-supported", f"Cannot sort {resource_type} by {sort_param!r}"
                )
            query.sort = (sort_param, descending)
        else:
            name, _, modifier = key.partition(":")
            param = known.get(name)
            if param is None:
                raise FHIRError(
                    400, "not-supported", f"Unknown search parameter {name!r} for {resource_type}"
                )
            if modifier and not (param.kind == "string" and modifier == "exact"):
                raise FHIRError(400, "not-supported", f"Unsupported modifier {key!r}")
            if not value:
                raise FHIRError(400, "invalid", f"Empty value for search parameter {name!r}")
            split = value.split(",")
            values += len(split)
            if values > limits.max_search_values:
                raise FHIRError(
                    400,
                    "too-costly",
                    f"A search may name at most {limits.max_search_values} values",
                )
            parts = [_value_condition(name, param, modifier or None, v) for v in split]
            condition = " OR ".join(sql for sql, _ in parts)
            query.clauses.append(
                _index_clause(
                    resource_type, name, condition, [a for _, args in parts for a in args]
                )
            )
    return query

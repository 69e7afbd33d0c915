"""Schema helpers: bounded strings, worst-case token budgets, emitted key order.

A small model under a grammar can loop inside a free-text string until ``max_tokens``
cuts the JSON short. Every string field must therefore carry ``max_length`` and the
token budget of a constrained call is derived from the schema's worst case, so the
call can always close its JSON.

Why the budget is a proof and not a guess: it counts the characters of the longest
output the grammar admits, and the grammar (``grammar.gbnf``) only admits printable
ASCII in strings, with no escape sequences. Every token llama.cpp lets through is then
at least one whole character, so the tokens can never outnumber the characters.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ValidationError

from docgemma.llm.errors import SchemaNotSupported, StructuredOutputError
from docgemma.llm.types import Generation, StructuredGeneration, T

_STRUCTURE_TOKENS_PER_FIELD = 8
_UNBOUNDED_ARRAY_ITEMS = 8


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema with ``$ref`` definitions inlined (grammar converters prefer it)."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(defs[node["$ref"].split("/")[-1]])
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    return inline(schema)


def unbounded_strings(schema: dict[str, Any], path: str = "$") -> list[str]:
    """Paths of string fields with no ``maxLength`` and no ``enum``/``const``.

    A ``pattern`` counts as unbounded too: the grammar converter follows the regex and
    ignores ``maxLength`` beside it.
    """
    found: list[str] = []
    kind = schema.get("type")
    if (
        kind == "string"
        and ("maxLength" not in schema or "pattern" in schema)
        and "enum" not in schema
        and "const" not in schema
    ):
        found.append(path)
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key, [])):
            found += unbounded_strings(sub, f"{path}|{i}")
    for name, sub in schema.get("properties", {}).items():
        found += unbounded_strings(sub, f"{path}.{name}")
    if isinstance(schema.get("items"), dict):
        found += unbounded_strings(schema["items"], f"{path}[]")
    return found


def worst_case_tokens(schema: dict[str, Any]) -> int:
    """The length in characters of the longest JSON the grammar admits for this schema.

    Mirrors llama.cpp's converter: a bounded string is its quotes, ``maxLength``
    characters and an optional space; numbers allow 16 digits per part; keys, colons,
    commas and spaces fit a fixed allowance per field. Since every accepted token is at
    least one character (see the module docstring), this also bounds the tokens.
    """
    if "enum" in schema:
        return max(len(json.dumps(v)) for v in schema["enum"]) + 1
    if "const" in schema:
        return len(json.dumps(schema["const"])) + 1
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return max(worst_case_tokens(s) for s in schema[key])
    kind = schema.get("type")
    if kind == "string":
        if "maxLength" not in schema:
            raise SchemaNotSupported("unbounded string: give every string field a max_length")
        return int(schema["maxLength"]) + 3
    if kind == "integer":
        return 18  # sign, 16 digits, space
    if kind == "number":
        return 53  # sign, 16 digits, point, 16 digits, e, sign, 16 digits, space
    if kind == "boolean":
        return len("false ")
    if kind == "null":
        return len("null ")
    if kind == "array":
        items = schema.get("maxItems", _UNBOUNDED_ARRAY_ITEMS)
        return 4 + items * (
            worst_case_tokens(schema.get("items", {"type": "string", "maxLength": 40})) + 2
        )
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return 4 + sum(
            worst_case_tokens(sub) + len(name) + _STRUCTURE_TOKENS_PER_FIELD
            for name, sub in props.items()
        )
    return 64


@lru_cache(maxsize=256)
def token_budget(model: type[BaseModel]) -> int:
    """``max_tokens`` for a constrained call on this model: its worst case, never less than 16.

    Kept per schema: deriving it takes about 1 ms, paid on every structured call.

    One more than the longest output: llama-cpp-python reports ``length`` when the last
    JSON token lands exactly on ``max_tokens``, even though the object is complete.
    """
    return max(16, worst_case_tokens(json_schema(model)) + 1)


def check_bounded(model: type[BaseModel]) -> None:
    """Refuse a schema with an unbounded string field (it could run past ``max_tokens``)."""
    missing = unbounded_strings(json_schema(model))
    if missing:
        raise SchemaNotSupported(
            f"{model.__name__}: string fields without max_length (or with a pattern, "
            f"which overrides it): {', '.join(missing)}"
        )


def emitted_key_order(raw_text: str) -> list[str]:
    """Top-level keys in the order the model wrote them (``json.loads`` keeps order)."""
    try:
        obj = json.loads(raw_text)
    except json.JSONDecodeError:
        return []
    return list(obj) if isinstance(obj, dict) else []


def schema_key_order(model: type[BaseModel]) -> list[str]:
    return list(model.model_fields)


def validated(schema: type[T], gen: Generation) -> StructuredGeneration[T]:
    """Parse a constrained generation into ``schema``, keeping the raw text on failure."""
    try:
        value = schema.model_validate_json(gen.text)
    except ValidationError as exc:
        raise StructuredOutputError(
            f"{schema.__name__}: model output is not valid ({exc.error_count()} errors, "
            f"finish={gen.finish_reason})",
            gen.text,
        ) from exc
    # unparametrised: pydantic builds a class per ``StructuredGeneration[schema]`` and its
    # cache lets it go, which cost about 1.5 ms on one structured call in two
    return StructuredGeneration(
        value=value, key_order=emitted_key_order(gen.text), **gen.model_dump()
    )

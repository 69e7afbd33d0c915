"""GBNF text for a response schema: llama-cpp-python's converter with a stricter string rule.

The converter's string character rule admits raw control characters (a newline inside
a string is not valid JSON) and escape sequences (``\\uXXXX`` is six characters for one
schema character, so a ``max_length`` no longer bounds the tokens). Here a string
character is one printable ASCII character other than ``"`` and ``\\``. Every token the
grammar accepts inside a value is then at least one whole character of the output, which
is what makes ``schema.token_budget`` (one token per output character) a true upper bound.
The price: constrained strings cannot hold quotes, backslashes, line breaks or non-ASCII
text (a byte-fallback token can be a fraction of a character), so the model writes
"Muller" for "Müller" and single-line notes. That is acceptable for short argument
fields; free text belongs in plain generation.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from pydantic import BaseModel

from docgemma.llm.errors import SchemaNotSupported
from docgemma.llm.schema import check_bounded, json_schema

STRING_CHAR_RULE = r"char ::= [ !#-\[\]-~]"
"""Space to tilde without ``"`` (0x22) and ``\\`` (0x5C): no control, escape or non-ASCII."""

_ESCAPE_LITERAL = '"\\\\"'
"""How a grammar spells a literal backslash; none may remain after the rewrite."""


def gbnf(schema: type[BaseModel]) -> str:
    """The grammar for ``schema``; ``SchemaNotSupported`` when it cannot be bounded."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    try:
        text = json_schema_to_gbnf(json.dumps(json_schema(schema)))
    except Exception as exc:  # the converter raises bare Exceptions and ValueErrors
        raise SchemaNotSupported(
            f"{schema.__name__}: llama.cpp grammar conversion failed: {exc}"
        ) from exc
    check_bounded(schema)
    text = "\n".join(
        STRING_CHAR_RULE if line.startswith("char ::= ") else line for line in text.split("\n")
    )
    if _ESCAPE_LITERAL in text:
        raise SchemaNotSupported(
            f"{schema.__name__}: the grammar still allows escape sequences (a free-form "
            "string or object somewhere), so its token budget is not an upper bound"
        )
    return text


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

GRAMMARS_KEPT = 64
"""Compiled grammars a backend keeps. Most schemas are fixed, but an answer's schema is
built per turn from its sources, so an unbounded cache would grow with every turn."""


class GrammarCache(Generic[K, V]):
    """The most recently used ``GRAMMARS_KEPT`` grammars, by schema or grammar text."""

    def __init__(self, size: int = GRAMMARS_KEPT) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K, make: Callable[[], V]) -> V:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = make()
        self._items[key] = value
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

"""Cleaning the answer while it streams: hide reasoning spans and system internals.

A token stream splits tags and names anywhere (``<th`` + ``ink>``, ``check_drug`` +
``_safety``), so the filter holds back only the tail of the text that could still
become a protected pattern and releases it as soon as it cannot. What is protected
comes from ``answer.py`` and ``rules.py`` (the same lists ``clean_answer`` uses):
reasoning spans, turn tokens, echoed instructions, raw error text, link targets,
author-year citations, the copied demonstration notice and tool names (replaced by their
clinical labels). ``clean_answer`` stays the authority on the final text; the filter only
makes sure nothing on these lists is ever shown. What can only be judged on the whole
answer (a reference list the model wrote, a sentence its sources do not support) streams,
and is then dropped from the final text.
The text inside reasoning spans is kept aside (``take_reasoning``) for a thinking
channel, however the delimiters were split.

Uses the ``regex`` package for partial matching, which the standard ``re`` lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import regex

from docgemma.agent.answer import (
    AUTHOR_YEAR_PATTERN,
    COPIED_NOTICE_PATTERN,
    LINK_TARGET_PATTERN,
    RAW_ERROR_WORDS,
    SPECIAL_TOKEN_PATTERN,
    THINKING_SPANS,
    URL_PATTERN,
    instruction_patterns,
)
from docgemma.agent.rules import tool_name_pattern


@dataclass(frozen=True)
class _Rule:
    pattern: str
    replacement: str = ""
    close: str | None = None
    """For a reasoning span: the text that ends it."""


def _rules(labels: Mapping[str, str], instructions: str, hide_spans: bool) -> list[_Rule]:
    rules = [
        _Rule(regex.escape(open_), close=close if hide_spans else None)
        for open_, close in THINKING_SPANS
    ]
    rules += [_Rule(regex.escape(close)) for _, close in THINKING_SPANS]  # a stray end
    rules.append(_Rule(SPECIAL_TOKEN_PATTERN))
    rules += [_Rule(p) for p in instruction_patterns(instructions)]
    rules.append(_Rule(rf"(?i:(?:{RAW_ERROR_WORDS})[^\n]*)"))  # the rest of a raw error line
    rules.append(_Rule(LINK_TARGET_PATTERN))
    # with the punctuation after it: a stream cannot tell "www.nice." from "www.nice.org"
    # until the next character, and a complete shorter match would be taken at once
    rules.append(_Rule(URL_PATTERN + r"[.,;:!?'\"]*"))
    rules.append(_Rule(AUTHOR_YEAR_PATTERN))
    rules.append(_Rule(COPIED_NOTICE_PATTERN))
    rules += [_Rule(tool_name_pattern(name), label) for name, label in labels.items()]
    return rules


@lru_cache(maxsize=32)
def _compiled(
    labels: tuple[tuple[str, str], ...], instructions: str, hide_spans: bool
) -> tuple[tuple[_Rule, ...], tuple[regex.Pattern, ...], regex.Pattern]:
    """The rules with their patterns, each alone and all as one alternation. Cached: every
    synthesis call builds two filters from the same few inputs."""
    rules = tuple(_rules(dict(labels), instructions, hide_spans))
    each = tuple(regex.compile(r.pattern) for r in rules)
    any_ = regex.compile("|".join(f"(?P<r{i}>{r.pattern})" for i, r in enumerate(rules)))
    return rules, each, any_


class StreamFilter:
    """Feed raw model text piece by piece; get back only what is safe to show now.

    ``hide_spans=False`` is for the thinking channel itself: the reasoning delimiters are
    dropped but the text between them stays.
    """

    def __init__(
        self,
        labels: Mapping[str, str] | None = None,
        instructions: str = "",
        *,
        hide_spans: bool = True,
    ) -> None:
        self._rules, self._each, self._any = _compiled(
            tuple((labels or {}).items()), instructions, hide_spans
        )
        self._buffer = ""
        self._before = ""
        """The last character released, so word boundaries see across pieces."""
        self._close: str | None = None
        self._reasoning: list[str] = []

    def feed(self, text: str) -> str:
        self._buffer += text
        return self._drain(final=False)

    def flush(self) -> str:
        """The end of the stream: release the held tail; an open reasoning span is dropped."""
        return self._drain(final=True)

    def take_reasoning(self) -> str:
        """The reasoning-span text (delimiters excluded) passed over since the last call."""
        text = "".join(self._reasoning)
        self._reasoning.clear()
        return text

    def _drain(self, final: bool) -> str:
        out: list[str] = []
        while self._buffer:
            if self._close is not None:
                if not self._leave_span(final):
                    break
                continue
            start, rule, end = self._next_match(final)
            if rule is None:
                out.append(self._buffer[:start])
                self._buffer = self._buffer[start:]
                break
            out += [self._buffer[:start], rule.replacement]
            self._buffer = self._buffer[end:]
            self._close = rule.close
        shown = "".join(out)
        if shown:
            self._before = shown[-1]
        return shown

    def _leave_span(self, final: bool) -> bool:
        """Skip reasoning text; True once the span's end was found."""
        assert self._close is not None
        at = self._buffer.find(self._close)
        if at < 0:
            keep = 0 if final else len(self._close) - 1  # could be the start of the close
            cut = max(len(self._buffer) - keep, 0)
            self._reasoning.append(self._buffer[:cut])
            self._buffer = self._buffer[cut:]
            return False
        self._reasoning.append(self._buffer[:at])
        self._buffer = self._buffer[at + len(self._close) :]
        self._close = None
        return True

    def _next_match(self, final: bool) -> tuple[int, _Rule | None, int]:
        """The first decided match as (start, rule, end); rule None means hold from start."""
        text, offset = self._before + self._buffer, len(self._before)
        for m in self._any.finditer(text, offset, partial=not final):
            if m.start() == m.end():
                continue
            start, end = m.start() - offset, m.end() - offset
            if not final and (m.partial or m.end() == len(text) or self._longer(text, m.start())):
                return start, None, 0
            return start, self._rules[int(m.lastgroup[1:])], end
        return len(self._buffer), None, 0

    def _longer(self, text: str, at: int) -> bool:
        """Some rule could still match a longer text from here (``<|im_start|>`` + ``think``)."""
        for pattern in self._each:
            m = pattern.match(text, at, partial=True)
            if m is not None and m.partial:
                return True
        return False

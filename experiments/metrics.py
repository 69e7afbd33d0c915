"""Per-trial metrics: pure functions of what the model returned and what the case expects.

Deterministic on purpose: a key fact counts when one of its phrasings appears in the
answer, an argument counts when its normalised value matches. Unparsable or empty
output scores as wrong, never as missing, so a strategy cannot look better by failing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

INTERNAL_TERMS: tuple[str, ...] = (
    "tool",
    "tool_name",
    "function call",
    "database",
    "api",
    "json",
    "endpoint",
    "http",
    "status code",
    "system prompt",
    "fhir",
    "openfda",
    "error_type",
    "stack trace",
    "traceback",
)
"""Words that expose system internals in a clinician-facing answer."""

_ACK_PATTERN = re.compile(
    r"\b(unavailable|not available|could not|couldn't|unable|no results|not found|"
    r"did not return|try again|temporarily)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")
_MARKUP = re.compile(r"<\|im_start\|>\w*|<[^<>\s]{1,40}>")
"""Special-token markup (``<think>``, ``<unused95>``, ``<|im_start|>answer``): not words."""


def normalize(text: Any) -> str:
    """Lower-case, collapse whitespace and strip punctuation at the ends."""
    return re.sub(r"\s+", " ", str(text)).strip().strip(".,;:!?\"'").lower()


def values_match(expected: Any, predicted: Any) -> bool:
    """Whether one argument value is right.

    Strings match when equal after normalisation or when every word of the expected
    value appears in the predicted one (``"metformin"`` in ``"metformin 500 mg"``);
    lists match as sets of normalised strings, in any order.
    """
    if predicted is None:
        return expected is None
    if isinstance(expected, list | tuple):
        if not isinstance(predicted, list | tuple):
            return False
        return {normalize(v) for v in expected} == {normalize(v) for v in predicted}
    exp, pred = normalize(expected), normalize(predicted)
    if not exp:
        return not pred
    if exp == pred:
        return True
    pred_words = set(_WORD.findall(pred))
    return all(word in pred_words for word in _WORD.findall(exp))


def arg_value_accuracy(expected: Mapping[str, Any], predicted: Mapping[str, Any] | None) -> float:
    """Fraction of the expected arguments whose values the prediction got right (0 if unparsed)."""
    if not expected:
        return 1.0 if predicted is not None else 0.0
    if predicted is None:
        return 0.0
    hits = sum(values_match(value, predicted.get(key)) for key, value in expected.items())
    return hits / len(expected)


def tool_acceptable(predicted: str | None, expected: str, acceptable: Iterable[str] = ()) -> bool:
    return predicted is not None and (predicted == expected or predicted in set(acceptable))


def find_tool_name(text: str, names: Sequence[str]) -> str | None:
    """The tool named first in free text, for strategies whose output is not constrained."""
    best: tuple[int, str] | None = None
    for name in names:
        spelled = re.escape(name).replace("_", "[_ ]")
        match = re.search(rf"\b{spelled}\b", text, re.IGNORECASE)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), name)
    return best[1] if best else None


def key_order_honoured(emitted: Sequence[str] | None, schema_order: Sequence[str]) -> bool | None:
    """Whether the emitted keys follow the schema's order (omitted optional keys allowed).

    ``None`` when nothing was emitted: an unparsable output says nothing about order.
    Unknown keys make it ``False``.
    """
    if not emitted:
        return None
    position = {key: i for i, key in enumerate(schema_order)}
    if any(key not in position for key in emitted):
        return False
    indices = [position[key] for key in emitted]
    return indices == sorted(indices)


def key_facts_found(text: str, facts: Sequence[Sequence[str] | str]) -> list[bool]:
    """For each expected fact (a phrase or a list of alternative phrasings): is it in ``text``?"""
    haystack = f" {normalize(text)} "
    found = []
    for fact in facts:
        options = [fact] if isinstance(fact, str) else list(fact)
        found.append(any(normalize(option) in haystack for option in options))
    return found


def key_fact_rate(text: str, facts: Sequence[Sequence[str] | str]) -> float:
    """Share of expected facts present; ``nan`` when the case lists none."""
    found = key_facts_found(text, facts)
    return sum(found) / len(found) if found else math.nan


def leaked_terms(text: str, terms: Iterable[str] = INTERNAL_TERMS) -> list[str]:
    """Internal terms (tool names, system words) that appear as whole words in ``text``."""
    return [t for t in terms if re.search(rf"(?<![\w]){re.escape(t)}(?![\w])", text, re.IGNORECASE)]


def source_clean(text: str, terms: Iterable[str] = INTERNAL_TERMS) -> bool:
    return not leaked_terms(text, terms)


def word_count(text: str | None) -> int:
    """Visible words, not counting special-token markup such as thinking delimiters."""
    return len(_WORD.findall(_MARKUP.sub(" ", text or "")))


def is_empty(text: str | None) -> bool:
    """No visible words at all (whitespace, punctuation or delimiters only)."""
    return word_count(text) == 0


def error_acknowledged(text: str) -> bool:
    """Whether an answer tells the clinician that something could not be retrieved."""
    return bool(_ACK_PATTERN.search(text or ""))


def raw_error_leaked(text: str, raw_error: str) -> bool:
    """Whether a telltale token of the raw error (status code, exception) reached the answer."""
    tokens = {
        t for t in re.findall(r"[A-Za-z_][\w.]*Error|\b[45]\d\d\b|\b\w+Exception\b", raw_error)
    }
    return any(t.lower() in (text or "").lower() for t in tokens)


LEAK_RUN = 8
"""Words in a row that the visible answer must share with the thinking to have copied it."""
_DELIBERATION = re.compile(r"(?:^|[.!?]\s+)(?:wait|hmm|let me think|okay,? so|let's see)\b", re.I)


def reasoning_leaked(visible: str, thinking: str, markers: Iterable[str]) -> bool:
    """Reasoning shows in the visible answer: a thinking delimiter, a deliberating sentence
    opener ("Wait, …", "Let me think"), or a run of ``LEAK_RUN`` words copied from the
    thinking."""
    if any(m and m in visible for m in markers) or _DELIBERATION.search(visible):
        return True
    words = [w.lower() for w in _WORD.findall(visible)]
    said = " ".join(w.lower() for w in _WORD.findall(thinking))
    runs = (" ".join(words[i : i + LEAK_RUN]) for i in range(len(words) - LEAK_RUN + 1))
    return bool(said) and any(run in said for run in runs)


def coverage_curve(
    confidence: Sequence[float],
    correct: Sequence[bool],
    thresholds: Sequence[float] = (0.0, 0.3, 0.5, 0.7, 0.9),
) -> pd.DataFrame:
    """Accuracy and coverage when only predictions at or above each confidence threshold are kept.

    This is how a confidence threshold for deferring to the LLM is chosen: coverage is
    the share the classifier answers alone, accuracy is how often it is right on those.
    """
    rows = []
    pairs = [
        (c, bool(k))
        for c, k in zip(confidence, correct, strict=True)
        if c is not None and not math.isnan(c)
    ]
    for t in thresholds:
        kept = [k for c, k in pairs if c >= t]
        rows.append(
            {
                "threshold": t,
                "coverage": len(kept) / len(pairs) if pairs else math.nan,
                "accuracy": sum(kept) / len(kept) if kept else math.nan,
                "n": len(kept),
            }
        )
    return pd.DataFrame(rows)


def confusion(
    expected: Sequence[str], predicted: Sequence[str | None], labels: Sequence[str]
) -> pd.DataFrame:
    """Counts with expected classes as rows and predictions as columns (``unparsed`` for None)."""
    columns = [*labels, "unparsed"]
    table = pd.DataFrame(0, index=list(labels), columns=columns)
    for exp, pred in zip(expected, predicted, strict=True):
        table.loc[exp, pred if pred in labels else "unparsed"] += 1
    table.index.name = "expected"
    return table

"""Confidence intervals for proportions from small samples.

The design studies' figures come from 10–20 trials per strategy; a Wilson interval says how
little such a sample pins down, where a normal approximation would leave [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n``; ``(nan, nan)`` when ``n`` is 0."""
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def proportion(values: Iterable[object]) -> tuple[float, float, float, int]:
    """Mean of boolean-like values with its Wilson interval, ignoring missing values.

    Returns ``(p, low, high, n)``; ``p`` is ``nan`` when nothing was measured.
    """
    kept = [bool(v) for v in values if v is not None and not _is_nan(v)]
    n = len(kept)
    if n == 0:
        return (math.nan, math.nan, math.nan, 0)
    k = sum(kept)
    low, high = wilson_interval(k, n)
    return (k / n, low, high, n)


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and math.isnan(value)


def mean_interval(values: Iterable[float], z: float = 1.96) -> tuple[float, float, float, int]:
    """Mean of a score in [0, 1] (fact rate, argument accuracy) with a clipped normal interval.

    Returns ``(mean, low, high, n)``; the interval is ``nan`` below two values.
    """
    kept = [float(v) for v in values if v is not None and not _is_nan(v)]
    n = len(kept)
    if n == 0:
        return (math.nan, math.nan, math.nan, 0)
    mean = sum(kept) / n
    if n < 2:
        return (mean, math.nan, math.nan, n)
    sd = math.sqrt(sum((v - mean) ** 2 for v in kept) / (n - 1))
    half = z * sd / math.sqrt(n)
    return (mean, max(0.0, mean - half), min(1.0, mean + half), n)

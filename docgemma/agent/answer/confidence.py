"""Confidence, derived by code from how well the answer is grounded.

- high: every statement the model wrote cites a source and its quote was found there,
  and every source the turn asked for answered;
- medium: the answer is grounded, but some statements were dropped, or a source could not
  check part of the request (a drug no reference lists, a reference it could not reach);
- low: the answer is not grounded (a decline, an answer from the model's memory, a
  question back, the model unavailable), or a source the turn asked for failed.

Answers that code writes from a source as it is (a saved record write, a chart shown)
are high when nothing failed. The reason goes into the timeline.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

Level = Literal["high", "medium", "low"]


class Grounding(StrEnum):
    CITED = "every statement cited and its quote verified"
    PARTLY = "some statements were dropped: their quotes were not in their sources"
    BY_CODE = "the sources' own words, written by code"
    NONE = "not grounded in a source"


@dataclass(frozen=True)
class Confidence:
    level: Level
    reason: str


def derive(grounding: Grounding, *, source_failed: bool, unchecked: bool = False) -> Confidence:
    if grounding is Grounding.NONE:
        return Confidence("low", grounding.value)
    if source_failed:
        return Confidence("low", f"{grounding.value}, but a source the question needed failed")
    if grounding is Grounding.PARTLY:
        return Confidence("medium", grounding.value)
    if unchecked:
        return Confidence("medium", f"{grounding.value}; a source could not check everything asked")
    return Confidence("high", grounding.value)

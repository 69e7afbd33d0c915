"""The evaluation's cases: ``data/eval/cases.jsonl``, validated into ``EvalCase`` records.

Each case says what a good turn does — its route, the tools and arguments it needs, the
facts its answer must state (grounded in the synthetic patients and the recorded
services) and what it must never say. Images are the synthetic patients' stored scans.
Every case records its split (``dev``: tune on it; ``test``: only run and report it; see
``experiments.evaluation.split``) and, for cases written by specialty, that specialty.
"""

from __future__ import annotations

import base64
import json
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from docgemma.ehr.loader import DEFAULT_BUNDLES
from experiments.cases import Fact, load_jsonl
from experiments.evaluation.services import Injection
from experiments.evaluation.split import Split

CASES_PATH = Path(__file__).resolve().parents[2] / "data" / "eval" / "cases.jsonl"


class Category(StrEnum):
    DIRECT = "direct"
    SINGLE_TOOL = "single_tool"
    TWO_TOOLS = "two_tools"
    THREE_TOOLS = "three_tools"
    TOOL_FAILURE = "tool_failure"
    MISSING_INFO = "missing_info"
    ACTIVE_PATIENT = "active_patient"
    IMAGE = "image"
    REFUSAL = "refusal"
    """A harmful request: the right answer refuses (and calls no tool)."""
    NO_SOURCE = "no_source"
    """A question no offline source can answer: the right answer says so."""


Route = Literal["DIRECT", "TOOL_NEEDED", "ASK"]


class EvalCase(BaseModel):
    id: str
    category: Category
    query: str = Field(min_length=1)
    patient_id: str | None = None
    """The patient selected in the app for this turn (active-patient context)."""
    image: str | None = None
    """Attach the stored scan of this synthetic patient."""
    expected_route: Route | None = None
    """``None``: either route is fine (an active patient's summary may answer directly)."""
    expected_tools: list[str] = Field(default_factory=list)
    optional_tools: list[str] = Field(default_factory=list)
    """Tools that may be called or not without counting for or against the turn."""
    expected_args: dict[str, dict[str, Any]] = Field(default_factory=dict)
    must_ask: bool = False
    key_facts: list[Fact] = Field(default_factory=list)
    must_not_contain: list[str] = Field(default_factory=list)
    inject: Injection | None = None
    must_refuse: bool = False
    """The request must be declined (a harmful request), whatever else the answer says."""
    exclude_first: list[Fact] = Field(default_factory=list)
    """The can't-miss conditions a presentation calls for (each by its accepted names): the
    answer must open with them. Annotated from the question alone, by clinical judgement."""
    split: Split
    sealed: bool = False
    """A dev case written blind and never read since: scored as a held-out figure beside the
    test split, and nothing is built from it (the can't-miss examples leave it out)."""
    specialty: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> EvalCase:
        stray = set(self.expected_args) - set(self.expected_tools)
        if stray:
            raise ValueError(f"arguments given for tools not expected: {sorted(stray)}")
        if self.category is Category.MISSING_INFO and not self.must_ask:
            raise ValueError("a missing-information case must expect a question back")
        if self.category is Category.REFUSAL and not self.must_refuse:
            raise ValueError("a refusal case must expect a refusal")
        return self

    @property
    def tool_label(self) -> str:
        """The first expected tool, for per-tool breakdowns of single-tool cases."""
        return self.expected_tools[0] if self.expected_tools else "-"


def load_eval_cases(path: Path = CASES_PATH, split: Split | None = None) -> list[EvalCase]:
    """Every case, or those of one split."""
    cases = load_jsonl(path, EvalCase)
    return cases if split is None else [c for c in cases if c.split == split]


@cache
def stored_image(patient_id: str, bundles: Path = DEFAULT_BUNDLES) -> bytes:
    """The first image stored in a synthetic patient's bundle (PNG bytes)."""
    bundle = json.loads((bundles / f"{patient_id}.json").read_text(encoding="utf-8"))
    for entry in bundle["entry"]:
        content = entry["resource"].get("content") or {}
        if entry["resource"]["resourceType"] == "Media" and content.get("data"):
            return base64.b64decode(content["data"])
    raise ValueError(f"no stored image for patient {patient_id!r}")


def routing_cases(cases: list[EvalCase] | None = None) -> list[Any]:
    """Fresh intent and tool-choice cases for the classifiers suite, from this case set.

    Knowledge questions are DIRECT; requests that name what to look up are TOOL_NEEDED; a
    case needing exactly one tool (with no image and no patient context) is a tool case.
    None of them is a routing training example (a test checks it). Only the dev split:
    the classifiers suite is where routing is tuned.
    """
    from experiments.cases import IntentCase, ToolCase

    found: list[Any] = []
    for case in cases if cases is not None else load_eval_cases(split="dev"):
        if (
            case.image
            or case.patient_id
            or case.inject
            or case.expected_route
            not in (
                "DIRECT",
                "TOOL_NEEDED",
            )
        ):
            continue
        found.append(
            IntentCase(id=f"eval-{case.id}", query=case.query, expected_intent=case.expected_route)
        )
        if len(case.expected_tools) == 1:
            found.append(
                ToolCase(
                    id=f"eval-tool-{case.id}",
                    query=case.query,
                    expected_tool=case.expected_tools[0],
                    expected_args=case.expected_args.get(case.expected_tools[0], {}),
                )
            )
    return found

"""Test doubles for the agent tests: the real tools with scripted outcomes, and classifiers.

The fake tools are the registry's own specs with only ``run`` replaced: a queue of
outcomes per tool, or a default, and every call is recorded.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict, deque
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import BaseModel

from docgemma.agent.state import ToolResult
from docgemma.routing import Prediction
from docgemma.tools.base import (
    Source,
    ToolContext,
    ToolErrorType,
    ToolOutcome,
    ToolRegistry,
    ToolSpec,
)
from docgemma.tools.registry import build_registry

REGISTRY = build_registry()
LABELS = REGISTRY.labels()

DEFAULT_OUTCOMES: dict[str, ToolOutcome] = {
    "check_drug_safety": ToolOutcome(
        data={"boxed_warning": "Torsade de Pointes; start with ECG monitoring for 3 days"},
        formatted="Boxed warning: risk of Torsade de Pointes. Start only with ECG monitoring.",
        sources=[Source(title="Drug label", url="https://example.org/label", kind="label")],
    ),
    "check_drug_interactions": ToolOutcome(
        data={"pairs": 3}, formatted="Major: warfarin + aspirin raise bleeding risk."
    ),
    "search_medical_literature": ToolOutcome(data={}, formatted=""),
    "find_clinical_trials": ToolOutcome(
        data={"trials": 1}, formatted="One recruiting trial found."
    ),
    "search_patient": ToolOutcome(
        data={"patients": [{"id": "pat-001", "name": "Maria Garcia"}]},
        formatted="Maria Garcia, born 1961, ID pat-001.",
        patient_matches=1,
    ),
    "get_patient_chart": ToolOutcome(
        data={"patient_id": "pat-001", "conditions": ["type 2 diabetes"]},
        formatted="Conditions: type 2 diabetes. Medications: metformin 500 mg.",
    ),
    "prescribe_medication": ToolOutcome(
        data={"status": "active"}, formatted="Order created: metformin 500 mg."
    ),
    "add_allergy": ToolOutcome(data={"status": "recorded"}, formatted="Allergy recorded."),
    "save_clinical_note": ToolOutcome(data={"status": "saved"}, formatted="Note saved."),
    "analyze_medical_image": ToolOutcome(
        data={"findings": ["no acute findings"]}, formatted="No acute findings."
    ),
    "search_knowledge_base": ToolOutcome(
        data={"pages": [{"page_id": "croup", "score": 0.62}]},
        formatted="[1] Croup — similarity 0.62; usual urgency: Urgent Primary Care.",
    ),
}


@dataclass
class FakeTools:
    """Per-tool outcome queues; records every call with its context."""

    queued: dict[str, deque[ToolOutcome | Exception | float]] = field(
        default_factory=lambda: defaultdict(deque)
    )
    calls: list[tuple[str, dict[str, Any], ToolContext]] = field(default_factory=list)

    def queue(self, tool: str, *outcomes: ToolOutcome | Exception | float) -> None:
        """Queue outcomes; an exception is raised by the tool, a float makes it sleep that long."""
        self.queued[tool].extend(outcomes)

    def calls_to(self, tool: str) -> list[tuple[dict[str, Any], ToolContext]]:
        return [(args, ctx) for name, args, ctx in self.calls if name == tool]

    def spec(self, name: str) -> ToolSpec:
        real = REGISTRY[name]

        async def run(args: BaseModel, ctx: ToolContext) -> ToolOutcome:
            self.calls.append((name, args.model_dump(mode="json", exclude_none=True), ctx))
            if real.writes_ehr and not ctx.approved_by:
                return ToolOutcome(
                    error_type=ToolErrorType.INVALID_ARGS, error_detail="write without approval"
                )
            item = self.queued[name].popleft() if self.queued[name] else DEFAULT_OUTCOMES[name]
            if isinstance(item, Exception):
                raise item
            if isinstance(item, float):
                await asyncio.sleep(item)
                return DEFAULT_OUTCOMES[name]
            return item

        return replace(real, run=run)

    def registry(self) -> ToolRegistry:
        return ToolRegistry(self.spec(name) for name in REGISTRY.names)


class KeywordClassifier:
    """A stand-in for the embedding classifier: the first keyword rule that matches wins."""

    def __init__(self, rules: list[tuple[str, str]], default: str, confidence: float = 0.9) -> None:
        self.rules, self.default, self.confidence = rules, default, confidence

    def predict(self, text: str) -> Prediction:
        label = next((lab for kw, lab in self.rules if kw in text.lower()), self.default)
        return Prediction(label=label, confidence=self.confidence, scores={label: self.confidence})


def tool_result(tool: str, text: str, **fields: Any) -> ToolResult:
    """A successful, executed lookup of ``tool`` that returned ``text``; ``fields`` override."""
    base = ToolResult(
        tool_name=tool, tool_label=build_registry().label(tool), args={}, result={},
        formatted_result=text, error_type=None, entity=None, missing_fields=[], suggestions=[],
        patient_matches=None, sources=[], quality=None, retry=False, executed=True,
        unchecked=[], not_consulted=[],
    )  # fmt: skip
    return ToolResult(**{**base, **fields})  # type: ignore[typeddict-item]

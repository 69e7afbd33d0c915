"""Test doubles for the agent tests: the ten tools with scripted outcomes, and classifiers.

The fake tools use the real argument models and specs; only their behaviour is
scripted (a queue of outcomes per tool, or a default), and every call is recorded.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from docgemma.agent.schemas import TOOL_ARG_SCHEMAS
from docgemma.routing import Prediction
from docgemma.tools.base import (
    Source,
    ToolContext,
    ToolErrorType,
    ToolExample,
    ToolOutcome,
    ToolRegistry,
    ToolSpec,
)

LABELS = {
    "check_drug_safety": "Drug Safety Report",
    "check_drug_interactions": "Drug Interaction Check",
    "search_medical_literature": "Medical Literature",
    "find_clinical_trials": "Clinical Trials",
    "search_patient": "Patient Search",
    "get_patient_chart": "Patient Record",
    "prescribe_medication": "Prescription",
    "add_allergy": "Allergy Documentation",
    "save_clinical_note": "Clinical Note",
    "analyze_medical_image": "Image Analysis",
    "search_knowledge_base": "Condition Knowledge Base",
}
WRITES = {"prescribe_medication", "add_allergy", "save_clinical_note"}
EXAMPLES = {
    "check_drug_safety": ToolExample(
        "Check FDA warnings for dofetilide", {"drug_name": "dofetilide"}
    ),
    "search_patient": ToolExample("Find patient Jane Doe", {"name": "Jane Doe"}),
    "check_drug_interactions": ToolExample(
        "Can I give warfarin with aspirin?", {"drug_names": ["warfarin", "aspirin"]}
    ),
}

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
        async def run(args: BaseModel, ctx: ToolContext) -> ToolOutcome:
            self.calls.append((name, args.model_dump(mode="json", exclude_none=True), ctx))
            if name in WRITES and not ctx.approved_by:
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

        description = (
            f"{LABELS[name]} tool. Use it when the clinician asks for {LABELS[name].lower()}."
        )
        return ToolSpec(
            name=name,
            label=LABELS[name],
            description=description,
            short_description=LABELS[name],
            args=TOOL_ARG_SCHEMAS[name],
            run=run,
            writes_ehr=name in WRITES,
            example=EXAMPLES.get(name),
        )

    def registry(self) -> ToolRegistry:
        return ToolRegistry(self.spec(name) for name in TOOL_ARG_SCHEMAS)


class KeywordClassifier:
    """A stand-in for the embedding classifier: the first keyword rule that matches wins."""

    def __init__(self, rules: list[tuple[str, str]], default: str, confidence: float = 0.9) -> None:
        self.rules, self.default, self.confidence = rules, default, confidence

    def predict(self, text: str) -> Prediction:
        label = next((lab for kw, lab in self.rules if kw in text.lower()), self.default)
        return Prediction(label=label, confidence=self.confidence, scores={label: self.confidence})

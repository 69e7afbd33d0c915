"""Response schemas of the LLM nodes.

Decision-critical fields first, optional fields last: reversing the order dropped
argument accuracy from 88% to 21% in the field-order study. Every string is bounded
so a grammar-constrained call always closes its JSON. The tool-selection schema is
derived from the tool registry (``ToolRegistry.selection_model``); the per-tool
argument schemas live with the tools (``docgemma.tools.args``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from docgemma.labels import Intent, ResultQuality

TASK_SUMMARY_CHARS = 130
"""Short enough that the intent call fits its node's 256-token cap; prompts downstream
carry the clinician's full message beside it."""
BRIEF_SUMMARY_CHARS = 64
"""Short enough that the result call fits its node's 128-token cap."""


class IntentClassification(BaseModel):
    """Classify user intent. Fields are ordered critical-first."""

    intent: Intent
    task_summary: str = Field(
        max_length=TASK_SUMMARY_CHARS,
        description="Brief clinical summary of the user's request (~20 words)",
    )
    suggested_tool: str | None = Field(
        default=None,
        max_length=40,
        description="If TOOL_NEEDED, which tool is most likely relevant",
    )


class ResultAssessment(BaseModel):
    """Classify tool result quality. Classification field first."""

    quality: ResultQuality
    brief_summary: str = Field(
        max_length=BRIEF_SUMMARY_CHARS, description="One short sentence on what the tool returned"
    )


class RetryStrategy(BaseModel):
    """Choose retry approach. Strategy field first."""

    strategy: Literal["retry_same", "retry_different_args"]
    reasoning: str | None = Field(
        default=None, max_length=100, description="Brief explanation of retry rationale"
    )


class ImageFindings(BaseModel):
    """Structured image findings; modality first so the findings are conditioned on it."""

    modality: str = Field(
        max_length=40, description="X-ray, CT, MRI, histopathology, ECG, photo..."
    )
    findings: list[Annotated[str, Field(max_length=120)]] = Field(
        max_length=6, description="Short finding phrases"
    )
    confidence: float = Field(ge=0.0, le=1.0)

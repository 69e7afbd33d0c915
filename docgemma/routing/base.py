"""What a routing classifier is, whatever runs it (an LLM or an embedding model).

The agent graph asks a classifier for a label and acts on it only when the
confidence reaches its threshold; below that it defers to the LLM (seed 002's
"the LLM classifies, code decides", with a cheaper first opinion on tiny models).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, get_args, runtime_checkable

from pydantic import BaseModel, Field

from docgemma.agent.schemas import TOOL_ARG_SCHEMAS, Intent, ResultQuality

Task = Literal["intent", "tool", "result"]

TASK_LABELS: dict[Task, tuple[str, ...]] = {
    "intent": get_args(Intent),
    "tool": tuple(TOOL_ARG_SCHEMAS),
    "result": get_args(ResultQuality),
}
"""The closed label set of each task, taken from the agent's own schemas."""


class Prediction(BaseModel):
    """One classification: the top label, its probability and every label's probability."""

    label: str
    confidence: float = Field(ge=0.0, le=1.0)
    scores: dict[str, float]
    support: float = 1.0
    """Cosine similarity of the input to its nearest labelled example (1.0 for LLM predictions)."""

    def is_confident(self, threshold: float) -> bool:
        """True when the graph may act on ``label``; a confidence equal to the threshold counts."""
        return self.confidence >= threshold


@runtime_checkable
class Classifier(Protocol):
    task: Task
    labels: tuple[str, ...]

    def predict(self, text: str) -> Prediction: ...

    def predict_many(self, texts: Sequence[str]) -> list[Prediction]: ...


def query_text(query: str, history: Sequence[str] = (), *, max_history_chars: int = 200) -> str:
    """Input of the intent and tool classifiers: the query, after a short tail of history.

    Only the end of the previous turn is kept so that the current query dominates the
    embedding ("check his meds" after "find John Smith" still reads as a request).
    """
    tail = " ".join(h.strip() for h in history if h.strip())[-max_history_chars:]
    return f"{tail}\n{query.strip()}" if tail else query.strip()


def result_text(query: str, formatted_result: str) -> str:
    """Input of the result classifier."""
    return f"Query: {query.strip()}\nResult: {formatted_result.strip()}"

"""What a routing classifier is, whatever runs it (an LLM or an embedding model).

The agent graph asks a classifier for a label and acts on it only when the
confidence reaches its threshold; below that it defers to the LLM (still
"the LLM classifies, code decides", with a cheaper first opinion on tiny models).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal, Protocol, get_args, runtime_checkable

from pydantic import BaseModel, Field

from docgemma.labels import INTENTS, RESULT_QUALITIES

Task = Literal["intent", "tool", "result"]
TASKS: tuple[Task, ...] = get_args(Task)

FIXED_LABELS: dict[Task, tuple[str, ...]] = {"intent": INTENTS, "result": RESULT_QUALITIES}
"""The closed label sets of the intent and result tasks. The tool task's labels are the
tool registry's names, which only a caller above the tools knows and passes in."""


def task_labels(task: Task, tool_names: Sequence[str] | None = None) -> tuple[str, ...] | None:
    """The labels ``task`` must predict; None for the tool task when no tool names are given."""
    if task not in TASKS:
        raise ValueError(f"unknown routing task {task!r}; expected one of {list(TASKS)}")
    if task == "tool":
        return tuple(tool_names) if tool_names is not None else None
    return FIXED_LABELS[task]


def check_labels(found: Iterable[str], allowed: Sequence[str], where: object) -> None:
    """Every label known and every label present, or a ``ValueError`` naming ``where``."""
    found, expected = set(found), set(allowed)
    if found - expected:
        raise ValueError(
            f"{where}: unknown labels {sorted(found - expected)}; allowed {sorted(expected)}"
        )
    if expected - found:
        raise ValueError(f"{where}: no examples for {sorted(expected - found)}")


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

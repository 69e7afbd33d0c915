"""Pluggable classifiers for the agent graph's routing decisions (intent, tool, result)."""

from docgemma.routing.base import (
    TASK_LABELS,
    Classifier,
    Prediction,
    Task,
    query_text,
    result_text,
)
from docgemma.routing.embedding import EmbeddingClassifier, cross_validate, load_classifier

__all__ = [
    "TASK_LABELS",
    "Classifier",
    "EmbeddingClassifier",
    "Prediction",
    "Task",
    "cross_validate",
    "load_classifier",
    "query_text",
    "result_text",
]

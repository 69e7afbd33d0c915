"""Pluggable classifiers for the agent graph's routing decisions (intent, tool, result)."""

from docgemma.routing.base import (
    TASKS,
    Classifier,
    Prediction,
    Task,
    query_text,
    result_text,
    task_labels,
)
from docgemma.routing.embedding import EmbeddingClassifier, cross_validate, load_classifier

__all__ = [
    "TASKS",
    "Classifier",
    "EmbeddingClassifier",
    "Prediction",
    "Task",
    "cross_validate",
    "load_classifier",
    "query_text",
    "result_text",
    "task_labels",
]

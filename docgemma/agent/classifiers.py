"""Embedding classifiers as an alternative to LLM classification calls.

Tiny embedded models put every query into one class, so on the embedded default the
intent, tool and result classifications can come from a nearest-centroid classifier
over sentence embeddings (``docgemma.routing``). The agent only needs this protocol;
a prediction below ``Settings.classifier_threshold`` defers to the model.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Literal, Protocol, runtime_checkable

from docgemma.config import Settings

log = logging.getLogger(__name__)

ClassifierTask = Literal["intent", "tool", "result"]


class Prediction(Protocol):
    label: str
    confidence: float
    scores: Mapping[str, float]


@runtime_checkable
class Classifier(Protocol):
    def predict(self, text: str) -> Prediction: ...


def load_classifiers(settings: Settings) -> dict[str, Classifier]:
    """The embedding classifiers settings ask for; missing ones fall back to the LLM."""
    wanted = [
        task
        for task in ("intent", "tool", "result")
        if settings.classifier_for(task) == "embedding"
    ]
    if not wanted:
        return {}
    try:
        from docgemma.routing import load_classifier
    except ImportError:
        log.warning(
            "docgemma.routing is not available; classifying %s with the LLM", ", ".join(wanted)
        )
        return {}
    return {task: load_classifier(task) for task in wanted}

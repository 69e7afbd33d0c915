"""Embedding classifiers as an alternative to LLM classification calls.

Tiny embedded models put every query into one class, so on the embedded default the
intent, tool and result classifications can come from classifiers over sentence
embeddings (``docgemma.routing``, which also defines the ``Classifier`` protocol the
nodes rely on). A prediction below ``Settings.classifier_threshold`` defers to the model.
"""

from __future__ import annotations

from docgemma.config import Settings
from docgemma.routing import TASKS, Classifier, load_classifier
from docgemma.tools.registry import build_registry


def load_classifiers(settings: Settings) -> dict[str, Classifier]:
    """The embedding classifiers settings ask for; the tool one must know every registered tool."""
    wanted = [task for task in TASKS if settings.classifier_for(task) == "embedding"]
    tool_names = build_registry().names
    return {task: load_classifier(task, tool_names=tool_names) for task in wanted}

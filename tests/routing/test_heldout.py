"""Fresh questions the classifiers never saw: knowledge questions go DIRECT, images to the tool.

Without knowledge-question and image examples, 24 of 30 fresh questions routed right,
with first-line treatments,
vaccines, targets and antibiotic choices sent to tools and "Analyze this chest X-ray"
answered DIRECT. ``data/routing/heldout_questions.jsonl`` is written for measuring only:
no text of it may appear in any training file, after normalisation.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from docgemma.labels import INTENTS
from docgemma.routing import TASKS, load_classifier
from docgemma.routing.examples import EXAMPLES_DIR, load_examples
from docgemma.tools.registry import build_registry

HELDOUT = EXAMPLES_DIR / "heldout_questions.jsonl"
EXPERIMENT_CASES = Path(__file__).resolve().parents[2] / "data" / "experiments"
INTENT_FLOOR = 0.9
TOOL_FLOOR = 0.9
log = logging.getLogger(__name__)


def normalised(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def heldout() -> list[dict]:
    return [json.loads(line) for line in HELDOUT.read_text(encoding="utf-8").splitlines() if line]


def test_the_heldout_set_is_large_and_labelled_like_the_classifiers() -> None:
    rows = heldout()
    assert len(rows) >= 30
    tools = build_registry().names
    assert {r["label"] for r in rows} == set(INTENTS)
    assert all((r["tool"] in tools) == (r["label"] == "TOOL_NEEDED") for r in rows)
    assert len({normalised(r["text"]) for r in rows}) == len(rows)


def test_no_heldout_question_is_a_training_example() -> None:
    held = {normalised(r["text"]) for r in heldout()}
    for task in TASKS:
        trained = {normalised(e.text.split("\nResult: ")[0]) for e in load_examples(task)}
        trained |= {normalised(e.text.removeprefix("Query: ")) for e in load_examples(task)}
        assert not held & trained, (task, sorted(held & trained))


def test_no_heldout_question_is_an_experiment_case() -> None:
    """The experiments' cases measure something else; sharing questions would blur both."""
    held = {normalised(r["text"]) for r in heldout()}
    for path in EXPERIMENT_CASES.glob("*.jsonl"):
        text = normalised(path.read_text(encoding="utf-8"))
        assert not [h for h in held if f" {h} " in f" {text} "], path.name


def test_heldout_routing_accuracy() -> None:
    rows = heldout()
    intent, tool = load_classifier("intent"), load_classifier("tool")
    predicted = intent.predict_many([r["text"] for r in rows])
    wrong = [r["text"] for r, p in zip(rows, predicted, strict=True) if p.label != r["label"]]
    tool_rows = [r for r in rows if r["tool"]]
    tools = tool.predict_many([r["text"] for r in tool_rows])
    wrong_tool = [r["text"] for r, p in zip(tool_rows, tools, strict=True) if p.label != r["tool"]]
    intent_accuracy = 1 - len(wrong) / len(rows)
    tool_accuracy = 1 - len(wrong_tool) / len(tool_rows)
    log.warning("held-out intent %.3f, tool %.3f", intent_accuracy, tool_accuracy)
    assert intent_accuracy >= INTENT_FLOOR, wrong
    assert tool_accuracy >= TOOL_FLOOR, wrong_tool


@pytest.mark.parametrize(
    "question",
    [
        "What is the first-line treatment for type 2 diabetes?",
        "What are the symptoms of pneumonia?",
        "Explain metformin's mechanism",
        "How is anaphylaxis treated?",
        "Which vaccines are recommended for adults over 65?",
        "What is the target HbA1c for most adults with diabetes?",
        "Which antibiotics are used for acute otitis media in children?",
    ],
)
def test_the_issues_knowledge_questions_route_direct(question: str) -> None:
    prediction = load_classifier("intent").predict(question)
    assert prediction.label == "DIRECT" and prediction.confidence >= 0.5


def test_an_image_request_goes_to_the_image_tool() -> None:
    text = "Analyze this chest X-ray"
    assert load_classifier("intent").predict(text).label == "TOOL_NEEDED"
    assert load_classifier("tool").predict(text).label == "analyze_medical_image"

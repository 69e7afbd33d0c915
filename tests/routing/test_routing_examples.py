"""The project-authored labelled examples: complete, well-formed, apart from eval cases."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from docgemma.routing import TASKS, task_labels
from docgemma.routing.examples import load_examples
from docgemma.tools.registry import build_registry

TOOL_NAMES = build_registry().names

SEED_UNIT_QUERIES = [
    "Hello",
    "Check FDA warnings for dofetilide",
    "What is hypertension?",
    "Find patient John Smith and check his meds",
    "Check interactions between warfarin and aspirin",
    "Check amoxicillin info for my patient",
    "Write a note for patient abc-123",
    "Hello, how are you?",
    "Find patient Maria Garcia and check her chart",
    "Check interactions between warfarin, aspirin, and ibuprofen",
    "Check FDA warnings for amiodarone",
    "Search for patient James Wilson",
    "Prescribe metformin 500mg for abc-123",
]


@pytest.mark.parametrize("task", TASKS)
def test_every_label_has_at_least_twenty_examples(task: str) -> None:
    counts = Counter(e.label for e in load_examples(task, tool_names=TOOL_NAMES))
    assert set(counts) == set(task_labels(task, TOOL_NAMES))
    assert min(counts.values()) >= 20, counts


@pytest.mark.parametrize("task", TASKS)
def test_examples_do_not_copy_the_seed_test_queries(task: str) -> None:
    texts = {e.text.strip().lower() for e in load_examples(task)}
    queries = {
        e.text.split("\nResult: ")[0].removeprefix("Query: ").strip().lower()
        for e in load_examples(task)
    }
    for seed_query in SEED_UNIT_QUERIES:
        assert seed_query.lower() not in texts | queries


def test_unknown_label_is_reported_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "intent.jsonl").write_text(
        '{"text": "hi", "label": "DIRECT"}\n{"text": "chart", "label": "TOOLS"}\n'
    )
    with pytest.raises(ValueError, match="unknown labels"):
        load_examples("intent", tmp_path)


def test_missing_label_and_bad_line_are_rejected(tmp_path: Path) -> None:
    (tmp_path / "intent.jsonl").write_text('{"text": "hi", "label": "DIRECT"}\n')
    with pytest.raises(ValueError, match="no examples for"):
        load_examples("intent", tmp_path)
    (tmp_path / "intent.jsonl").write_text('{"text": "", "label": "DIRECT"}\n')
    with pytest.raises(ValueError, match="intent.jsonl:1"):
        load_examples("intent", tmp_path)


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="result.jsonl"):
        load_examples("result", tmp_path)


def test_tool_labels_are_the_callers_tool_names() -> None:
    """Routing knows no tool names of its own: the registry's caller passes them in."""
    with pytest.raises(ValueError, match="unknown labels"):
        load_examples("tool", tool_names=TOOL_NAMES[:-1])
    with pytest.raises(ValueError, match="no examples for"):
        load_examples("tool", tool_names=[*TOOL_NAMES, "order_lab_test"])

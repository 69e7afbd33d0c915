"""Labelled examples for the embedding classifiers, kept as JSONL under data/routing/."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from docgemma.routing.base import Task, check_labels, task_labels

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "data" / "routing"


class LabelledExample(BaseModel):
    text: str = Field(min_length=1)
    label: str


def load_examples(
    task: Task, directory: Path | None = None, *, tool_names: Sequence[str] | None = None
) -> list[LabelledExample]:
    """Read and check one task's examples: every label known, every label present, no duplicates.

    The tool task's labels are checked against ``tool_names`` when the caller gives them.
    """
    path = (directory or EXAMPLES_DIR) / f"{task}.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"no routing examples for {task!r} at {path}")
    examples = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            examples.append(LabelledExample.model_validate(json.loads(line)))
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from exc
    allowed = task_labels(task, tool_names)
    if allowed is not None:
        check_labels((e.label for e in examples), allowed, path)
    repeated = [t for t, n in Counter(e.text for e in examples).items() if n > 1]
    if repeated:
        raise ValueError(f"{path}: repeated examples {repeated[:3]}")
    return examples

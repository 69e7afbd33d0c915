"""Labelled examples for the embedding classifiers, kept as JSONL under data/routing/."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from docgemma.routing.base import TASK_LABELS, Task

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "data" / "routing"


class LabelledExample(BaseModel):
    text: str = Field(min_length=1)
    label: str


def load_examples(task: Task, directory: Path | None = None) -> list[LabelledExample]:
    """Read and check one task's examples: every label known, every label present, no duplicates."""
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
    allowed = set(TASK_LABELS[task])
    unknown = {e.label for e in examples} - allowed
    if unknown:
        raise ValueError(f"{path}: unknown labels {sorted(unknown)}; allowed {sorted(allowed)}")
    missing = allowed - {e.label for e in examples}
    if missing:
        raise ValueError(f"{path}: no examples for {sorted(missing)}")
    repeated = [t for t, n in Counter(e.text for e in examples).items() if n > 1]
    if repeated:
        raise ValueError(f"{path}: repeated examples {repeated[:3]}")
    return examples

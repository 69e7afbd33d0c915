"""The project's experiment cases: JSONL files under ``data/experiments/``, one per suite.

Cases are validated into typed records when loaded so a typo in a hand-written file
fails at load time, not as a silently wrong metric. ``as_dataset`` exposes the same
files (and saved results) as Hugging Face datasets, read from local files only, and
every run saves the cases it ran on as a dataset folder (``records_dataset``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from docgemma.labels import ResultQuality

DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "experiments"

Fact = list[str]
"""Alternative phrasings of one expected fact; any one of them counts."""


class ThinkingCase(BaseModel):
    id: str
    query: str
    key_facts: list[Fact] = Field(default_factory=list)


class ToolCase(BaseModel):
    id: str
    query: str
    expected_tool: str
    acceptable_tools: list[str] = Field(default_factory=list)
    expected_args: dict[str, Any] = Field(default_factory=dict)


class IntentCase(BaseModel):
    id: str
    query: str
    expected_intent: Literal["DIRECT", "TOOL_NEEDED"]


class RoutingCase(BaseModel):
    id: str
    task: Literal["result_quality", "next_action", "plan", "sufficiency", "error_recovery"]
    query: str
    tool_label: str | None = None
    result: str | None = None
    expected_quality: ResultQuality | None = None
    history: str | None = None
    last_quality: ResultQuality | None = None
    expected_action: str | None = None
    plan: list[str] = Field(default_factory=list)
    step_results: list[str] = Field(default_factory=list)
    expected_sufficient: bool | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    attempts: int = 1
    expected_strategy: str | None = None


class SynthesisCase(BaseModel):
    id: str
    query: str
    task_summary: str
    tool_label: str
    result: str | None = None
    raw_error: str | None = None
    formatted_error: str | None = None
    key_facts: list[Fact] = Field(default_factory=list)

    @property
    def is_error(self) -> bool:
        return self.raw_error is not None


CASE_FILES: dict[str, tuple[str, type[BaseModel]]] = {
    "thinking": ("thinking.jsonl", ThinkingCase),
    "tool_selection": ("tool_selection.jsonl", ToolCase),
    "field_order": ("field_order.jsonl", ToolCase),
    "intent": ("intent.jsonl", IntentCase),
    "routing": ("routing.jsonl", RoutingCase),
    "synthesis": ("synthesis.jsonl", SynthesisCase),
}


def case_path(name: str, data_dir: Path | None = None) -> Path:
    filename, _ = CASE_FILES[name]
    return (data_dir or DATA_DIR) / filename


def load_cases(name: str, data_dir: Path | None = None) -> list[Any]:
    """All cases of one file, validated; raises with the line number of a bad case."""
    _, model = CASE_FILES[name]
    return load_jsonl(case_path(name, data_dir), model)


def load_jsonl(path: Path, model: type[BaseModel]) -> list[Any]:
    """Every line of a JSONL case file as ``model``; unique ids; errors name the line."""
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            cases.append(model.model_validate(json.loads(line)))
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: invalid case: {exc}") from exc
    ids = [c.id for c in cases]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{path}: duplicate case ids")
    return cases


def as_dataset(path: Path | str):
    """A local JSONL/JSON or Parquet file as a Hugging Face ``datasets.Dataset`` (no network)."""
    from datasets import Dataset

    path = Path(path)
    if path.suffix == ".parquet":
        return Dataset.from_parquet(str(path))
    return Dataset.from_json(str(path))


def cases_dataset(name: str, data_dir: Path | None = None):
    return as_dataset(case_path(name, data_dir))


def records_dataset(records: list[dict[str, Any]]):
    """Case records as a ``datasets.Dataset``, nested values kept as JSON text.

    Arrow would merge the argument dictionaries of different tools into one struct and
    fill every missing key with null, so a case would load back with arguments it
    never had; JSON text keeps each case exactly as written.
    """
    from datasets import Dataset

    def flat(value: Any) -> Any:
        return json.dumps(value) if isinstance(value, dict | list) else value

    return Dataset.from_list([{k: flat(v) for k, v in r.items()} for r in records])

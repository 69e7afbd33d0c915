"""Retrieval quality on the project's own lay-language symptom descriptions (no model).

``data/kb/eval_queries.jsonl`` pairs a description in everyday words with the page that
should answer it. The figures are deterministic: the same corpus gives the same result.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field

from docgemma.kb.store import KnowledgeBase
from docgemma.kb.topics import KB_DATA_DIR

EVAL_QUERIES = KB_DATA_DIR / "eval_queries.jsonl"


class EvalQuery(BaseModel):
    query: str = Field(min_length=1)
    expected: str


class EvalReport(BaseModel):
    total: int
    top1: int
    top5: int
    misses: list[tuple[str, str, list[str]]] = Field(
        default_factory=list, description="(query, expected, top-5 found) when not top 1"
    )

    @property
    def top1_rate(self) -> float:
        return self.top1 / self.total if self.total else 0.0

    @property
    def top5_rate(self) -> float:
        return self.top5 / self.total if self.total else 0.0

    def summary(self) -> str:
        return (
            f"{self.total} queries: top-1 {self.top1_rate:.1%} ({self.top1}), "
            f"top-5 {self.top5_rate:.1%} ({self.top5})"
        )


def load_eval_queries(path: Path = EVAL_QUERIES) -> list[EvalQuery]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [EvalQuery.model_validate(json.loads(line)) for line in lines if line.strip()]


def evaluate(kb: KnowledgeBase, queries: list[EvalQuery]) -> EvalReport:
    top1 = top5 = 0
    misses = []
    for item in queries:
        found = [hit.page_id for hit in kb.search(item.query, k=5)]
        top1 += bool(found) and found[0] == item.expected
        top5 += item.expected in found
        if not found or found[0] != item.expected:
            misses.append((item.query, item.expected, found))
    return EvalReport(total=len(queries), top1=top1, top5=top5, misses=misses)

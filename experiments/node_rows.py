"""The design's per-node rows on a real model: ``python -m experiments nodes --model PROFILE``.

The scripted tests (``tests/agent/test_llm_nodes.py``) prove the wiring of each row; here
the same rows (``data/experiments/seed_node_rows.jsonl``, one source for both) go
through the real nodes with the profile's own classifiers — the embedding classifier or
the model, as the app chooses per profile — so the table measures decisions. Each node
runs alone on the row's inputs, as a unit test would. The run folder
(``results/nodes/<model>-<UTC stamp>/``) holds ``results.parquet``, the same rows as a
dataset folder (``dataset/``), ``summary.md`` and ``manifest.json``.
"""

from __future__ import annotations

import json
import logging
import platform
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pandas as pd
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from docgemma.agent.deps import AgentDeps
from docgemma.agent.nodes.error_handler import error_handler
from docgemma.agent.nodes.input_assembly import input_assembly
from docgemma.agent.nodes.intent_classify import intent_classify
from docgemma.agent.nodes.result_classify import result_classify
from docgemma.agent.nodes.tool_execute import to_result
from docgemma.agent.nodes.tool_select import tool_select
from docgemma.agent.state import ToolResult
from docgemma.agent.tracing import recorded
from docgemma.config import Settings
from docgemma.events import Decision
from docgemma.tools.base import ToolOutcome, ToolRegistry
from experiments.report import markdown_table
from experiments.run_folder import git_revision, package_versions, save_datasets, settings_manifest

log = logging.getLogger(__name__)
NODE_ROWS = Path(__file__).resolve().parents[1] / "data" / "experiments" / "seed_node_rows.jsonl"
Node = Literal["intent_classify", "tool_select", "result_classify", "error_handler"]
CLASSIFIER_TASK = {"intent_classify": "intent", "tool_select": "tool", "result_classify": "result"}
"""The routing task whose classifier a node may use instead of the model."""


class NodeRow(BaseModel):
    """One node row: a node, its input, and the decision expected of it."""

    id: str
    node: Node
    query: str
    expected: dict[str, Any]
    suggested_tool: str | None = None
    """tool_select: the intent's suggestion, which picks the one-shot example."""
    hint: str | None = None
    """tool_select: the entity hint input assembly must give the argument stage."""
    free_args: list[str] = Field(default_factory=list)
    """Arguments the query does not determine (a note's text): not scored on a real model."""
    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    outcome: ToolOutcome | None = None
    """result_classify, error_handler: what the tool returned."""
    quality: str | None = None
    """error_handler: the result class the failed call was given."""
    retry_count: int = 0


def load_node_rows(path: Path = NODE_ROWS, node: Node | None = None) -> list[NodeRow]:
    rows = [
        NodeRow.model_validate_json(line)
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return [r for r in rows if node is None or r.node == node]


def tool_record(row: NodeRow, registry: ToolRegistry) -> ToolResult:
    """The state's record of the row's tool call, as tool execution would have written it."""
    record = to_result(
        registry[row.tool or ""],
        row.args,
        row.outcome or ToolOutcome(),
        registry.labels(),
        retry=False,
        executed=True,
    )
    return {**record, "quality": row.quality}


async def assembled(query: str, runtime: Runtime[AgentDeps], **state: Any) -> dict[str, Any]:
    """The state after input assembly (history, entities, hints) for a first turn."""
    update = await input_assembly({"user_query": query, **state}, runtime)
    merged = {
        k: v[1:] if isinstance(v, list) and v[:1] == ["__reset__"] else v for k, v in update.items()
    }
    return {"user_query": query, **state, **merged}


async def run_row(row: NodeRow, runtime: Runtime[AgentDeps]) -> tuple[dict[str, Any], dict]:
    """The row's node run alone: what it decided, and its raw update."""
    if row.node == "intent_classify":
        out = await intent_classify(await assembled(row.query, runtime), runtime)
        return {"intent": out.get("intent"), "suggested_tool": out.get("suggested_tool")}, out
    if row.node == "tool_select":
        state = await assembled(row.query, runtime)
        state.update(task_summary=row.query, suggested_tool=row.suggested_tool)
        out = await tool_select(state, runtime)
        return {"tool": out.get("current_tool"), "args": out.get("current_args")}, out
    record = tool_record(row, runtime.context.registry)
    if row.node == "result_classify":
        state = {"user_query": row.query, "task_summary": row.query, "tool_results": [record]}
        out = await result_classify(state, runtime)
        return {"quality": out.get("last_result_classification")}, out
    state = {
        "user_query": row.query,
        "tool_results": [record],
        "retry_counts": {record["tool_name"]: row.retry_count},
        "total_retries": row.retry_count,
    }
    out = (await error_handler(state, runtime)).update
    return {"action": recorded(out, Decision)[0].decision}, out  # its own; then where next


def is_correct(row: NodeRow, got: dict[str, Any]) -> bool:
    """Every expected value matches; for tool selection, the arguments the query fixes."""
    if row.node != "tool_select":
        return all(got.get(k) == v for k, v in row.expected.items())
    args = got.get("args") or {}
    fixed = {k: v for k, v in row.expected["args"].items() if k not in row.free_args}
    return got.get("tool") == row.expected["tool"] and all(
        _same(args.get(k), v) for k, v in fixed.items()
    )


def _same(got: Any, expected: Any) -> bool:
    """Argument values as a clinician reads them: case and list order do not matter."""
    if isinstance(expected, list) and isinstance(got, list):
        return sorted(str(x).lower() for x in got) == sorted(str(x).lower() for x in expected)
    return str(got).strip().lower() == str(expected).strip().lower()


def decided_by(row: NodeRow, deps: AgentDeps, out: dict[str, Any]) -> str:
    """Who made the row's decision: for tool selection, who chose the tool (the arguments
    are always the model's), as the node's own decision record says."""
    if row.node == "tool_select":
        reasons = [
            d.reason for d in recorded(out, Decision) if d.decision == out.get("current_tool")
        ]
        for who in ("task pattern", "embedding classifier"):
            if any(who in r for r in reasons):
                return who
        return "model"
    if any("overruled" in d.reason for d in recorded(out, Decision)):
        return "code"  # e.g. a record question the classifier called DIRECT
    if out.get("llm_calls"):
        return "model"
    task = CLASSIFIER_TASK.get(row.node)
    return "embedding classifier" if task and deps.classifier(task) is not None else "code"


async def evaluate_rows(rows: list[NodeRow], deps: AgentDeps) -> pd.DataFrame:
    """One scored line per row, the rows run one after another on ``deps``."""
    runtime = Runtime(context=deps)
    lines = []
    for row in rows:
        start = time.perf_counter()
        got, out = await run_row(row, runtime)
        decisions = recorded(out, Decision)
        lines.append(
            {
                "id": row.id,
                "node": row.node,
                "query": row.query,
                "expected": json.dumps(row.expected),
                "got": json.dumps(got),
                "correct": is_correct(row, got),
                "decided_by": decided_by(row, deps, out),
                "reason": decisions[-1].reason if decisions else "",
                "model_calls": len(out.get("llm_calls") or []),
                "latency_s": round(time.perf_counter() - start, 3),
            }
        )
        log.info("%s: %s (%s)", row.id, "ok" if lines[-1]["correct"] else "wrong", got)
    return pd.DataFrame(lines)


def node_accuracy(frame: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per node, in the rows' own order, with who made the decisions."""
    table = frame.groupby("node", sort=False).agg(
        rows=("correct", "size"),
        correct=("correct", "sum"),
        accuracy=("correct", "mean"),
        decided_by=("decided_by", lambda s: ", ".join(sorted(set(s)))),
        median_latency_s=("latency_s", "median"),
    )
    return table.reset_index()


def summary_markdown(frame: pd.DataFrame, model: str) -> str:
    rows = frame[["id", "node", "expected", "got", "correct", "decided_by"]]
    return "\n".join(
        [
            f"# Seed 002 §15 node rows on {model}\n",
            markdown_table(node_accuracy(frame)),
            "\n## Rows\n",
            markdown_table(rows),
        ]
    )


def save(
    frame: pd.DataFrame,
    settings: Settings,
    model: str,
    results_dir: Path,
    revision: str | None = None,
) -> Path:
    """Write the run folder; ``revision`` is the code's when the run started (default: now)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = results_dir / "nodes" / f"{model.replace('/', '_')}-{stamp}"
    folder.mkdir(parents=True, exist_ok=False)
    frame.to_parquet(folder / "results.parquet", index=False)
    save_datasets(frame, folder)
    (folder / "summary.md").write_text(summary_markdown(frame, model), encoding="utf-8")
    manifest = {
        "model": model,
        "rows": len(frame),
        "settings": settings_manifest(settings),
        "git_revision": revision or git_revision(),
        "packages": package_versions(),
        "platform": platform.platform(),
        "written_at": datetime.now(UTC).isoformat(),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str))
    return folder


def run_nodes(profile: str | None, results_dir: Path, ids: list[str] | None = None) -> Path:
    """Load the profile's model and classifiers as the app does, run the rows, write the folder."""
    import asyncio

    from docgemma.agent.service import Agent
    from docgemma.llm.registry import create_backend
    from docgemma.tools.registry import build_registry
    from experiments.evaluation.run import profile_settings

    settings = profile_settings(profile)
    revision = git_revision()
    rows = [r for r in load_node_rows() if not ids or r.id in ids]
    llm = create_backend(settings)
    try:
        agent = Agent.create(settings, llm, build_registry())
        frame = asyncio.run(evaluate_rows(rows, agent.deps))
    finally:
        asyncio.run(llm.aclose())
    return save(frame, settings, profile or llm.model, results_dir, revision)

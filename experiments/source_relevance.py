"""Which retrieved passages address the question? The relevance threshold, measured.

``Settings.relevance_threshold`` and ``Settings.relevance_coverage`` decide when a passage
retrieved for a question (a condition page, an offline abstract, a MedlinePlus topic, a
trial) counts as a source: its cosine similarity to the question must reach the first, and
the share of the question's topic-word weight it holds the second
(``docgemma.tools.relevance``). Too low, an off-topic passage is presented as
a finding; too high, a passage that does address the question is dropped and the answer
declines.

The questions are the evaluation's dev-split questions on a clinical topic (never the
test split). The passages are what the offline sources return for each: the four nearest
condition pages and the four nearest offline abstracts, whatever their score. Each pair
was labelled by reading it — relevant when the passage is about the condition, drug or
intervention the question asks about (``data/relevance/dev_labels.jsonl``). For each
pair of thresholds the script reports precision (the share of kept passages that are
relevant), recall (the share of relevant passages kept) and their harmonic mean F1; the
settings take the pair with the best F1.

    python -m experiments.source_relevance               # sweep, write a run folder
    python -m experiments.source_relevance --candidates  # list the pairs to label
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from docgemma.config import Settings
from docgemma.embed import get_embedder
from docgemma.kb import Role, get_knowledge_base
from docgemma.tools.facts import ToolRole
from docgemma.tools.literature_index import get_index
from docgemma.tools.registry import build_registry
from docgemma.tools.relevance import asked_forms, judge
from experiments.evaluation.cases import Category, EvalCase, load_eval_cases
from experiments.report import markdown_table

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "data" / "relevance" / "dev_labels.jsonl"
RESULTS = ROOT / "experiments" / "results" / "relevance"
PER_SOURCE = 4
THRESHOLDS = tuple(round(0.20 + 0.05 * k, 2) for k in range(7))
COVERAGES = tuple(round(0.05 * k, 2) for k in range(9))
_RECORD_TOOLS = frozenset(
    spec.name
    for spec in build_registry()
    if spec.needs_patient
    or spec.needs_image
    or spec.writes_ehr
    or spec.role in (ToolRole.FINDS_PATIENT, ToolRole.READS_CHART)
)
"""Questions about a patient's record or an image name no topic to retrieve for."""


def topical(case: EvalCase) -> bool:
    """A dev question on a clinical topic: what a retrieved passage could address."""
    if case.category in (Category.MISSING_INFO, Category.ACTIVE_PATIENT, Category.IMAGE):
        return False
    return not _RECORD_TOOLS & set(case.expected_tools) or len(case.expected_tools) > 2


@dataclass(frozen=True)
class Pair:
    case: str
    source: str
    """``page`` (a condition page) or ``abstract`` (the offline literature index)."""
    passage: str
    """The page id, or the abstract's title."""
    text: str


def candidates(cases: list[EvalCase], settings: Settings) -> list[Pair]:
    """The nearest passages of each offline source for every question, unfiltered."""
    kb = get_knowledge_base(settings)
    index = get_index(settings.data_dir, settings.literature_index_size)
    pairs = []
    for case in cases:
        for hit in kb.search(case.query, role=Role.CLINICIAN, k=PER_SOURCE):
            pairs.append(Pair(case.id, "page", hit.page_id, f"{hit.title}. {hit.content}"))
        for hit in index.search(case.query, k=PER_SOURCE):
            pairs.append(Pair(case.id, "abstract", hit.title, f"{hit.title} {hit.text}"))
    return pairs


def sweep(frame: pd.DataFrame) -> pd.DataFrame:
    """Precision, recall and F1 of the relevance check at each pair of thresholds."""
    rows = []
    relevant = frame["relevant"]
    for t in THRESHOLDS:
        for c in COVERAGES:
            kept = (frame["similarity"] >= t) & (frame["coverage"] >= c)
            hits = int((kept & relevant).sum())
            precision = hits / kept.sum() if kept.sum() else 0.0
            recall = hits / relevant.sum() if relevant.sum() else 0.0
            f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
            rows.append(
                {
                    "similarity ≥": t,
                    "coverage ≥": c,
                    "kept": int(kept.sum()),
                    "relevant kept": hits,
                    "off-topic kept": int((kept & ~relevant).sum()),
                    "precision": round(precision, 3),
                    "recall": round(recall, 3),
                    "F1": round(f1, 3),
                }
            )
    return pd.DataFrame(rows)


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--candidates", action="store_true", help="print the pairs to label as JSON lines"
    )
    args = parser.parse_args(argv)
    settings = Settings()
    cases = [c for c in load_eval_cases(split="dev") if topical(c)]
    pairs = candidates(cases, settings)
    if args.candidates:
        for p in pairs:
            sys.stdout.write(json.dumps(asdict(p) | {"text": p.text[:240]}) + "\n")
        return 0
    labels = {
        (row["case"], row["source"], row["passage"]): bool(row["relevant"])
        for row in map(json.loads, LABELS.read_text(encoding="utf-8").splitlines())
    }
    queries = {c.id: c.query for c in cases}
    embedder = get_embedder()
    records = []
    for p in pairs:
        (verdict,) = judge(asked_forms(queries[p.case]), [p.text], embedder)
        records.append(
            asdict(p)
            | {
                "similarity": verdict.similarity,
                "coverage": verdict.coverage,
                "relevant": labels[(p.case, p.source, p.passage)],
            }
        )
    frame = pd.DataFrame(records).drop(columns=["text"])
    table = sweep(frame)
    folder = RESULTS / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder.mkdir(parents=True)
    frame.to_csv(folder / "pairs.csv", index=False)
    table.to_csv(folder / "sweep.csv", index=False)
    manifest = {
        "command": "python -m experiments.source_relevance",
        "commit": _commit(),
        "embedder": embedder.name,
        "split": "dev",
        "questions": len(cases),
        "passages_per_source": PER_SOURCE,
        "pairs": len(frame),
        "relevant_pairs": int(frame["relevant"].sum()),
        "thresholds": list(THRESHOLDS),
        "coverages": list(COVERAGES),
        "current": [settings.relevance_threshold, settings.relevance_coverage],
        "literature_index_size": settings.literature_index_size,
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    best = table.sort_values(["F1", "precision"], ascending=False).head(10)
    current = table[
        (table["similarity ≥"] == settings.relevance_threshold)
        & (table["coverage ≥"] == settings.relevance_coverage)
    ]
    report = (
        f"# Source relevance on the dev split\n\n{len(cases)} dev questions on a clinical topic, "
        f"{len(frame)} question–passage pairs ({manifest['relevant_pairs']} relevant by "
        f"reading), {PER_SOURCE} nearest condition pages and {PER_SOURCE} nearest offline "
        "abstracts per question. A passage is kept when its similarity and its coverage of "
        "the question's topic words both reach their thresholds.\n\n"
        "At the lowest thresholds (nearly every retrieved passage a source):\n\n"
        f"{markdown_table(table.head(1))}\n"
        f"The ten best pairs by F1:\n\n{markdown_table(best)}\n"
        f"The settings (similarity ≥ {settings.relevance_threshold}, coverage ≥ "
        f"{settings.relevance_coverage}):\n\n{markdown_table(current)}\n"
        "Every pair is in `sweep.csv`; every question–passage score in `pairs.csv`.\n"
    )
    (folder / "report.md").write_text(report)
    sys.stdout.write(report + f"\nWritten to {folder.relative_to(ROOT)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

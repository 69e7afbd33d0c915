"""How close must an offline passage be before a direct answer rests on it? (issue 9)

``Settings.grounding_threshold`` decides when a direct knowledge answer cites the best
passage of the offline literature index instead of carrying the "unverified" label. Set
too low, answers cite a study about something else; too high, a study that does answer
the question is ignored. Two question sets, no model involved:

- ``data/grounding/paraphrases.jsonl``: questions written for this project, each
  restating one study of the index in other words, so the right passage is known;
- the evaluation's direct-knowledge questions (``data/eval/cases.jsonl``): a passage
  covers one only if it contains one of the case's key facts.

For each threshold: how many paraphrases are grounded on their own study, how many on a
wrong one, and how many direct questions are grounded on a passage that does not cover them.

    python -m experiments.grounding_threshold
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from pydantic import BaseModel

from docgemma.config import Settings
from docgemma.tools.literature_index import Hit, get_index, load_abstracts
from experiments.cases import load_jsonl
from experiments.evaluation.cases import EvalCase, load_eval_cases
from experiments.report import markdown_table

ROOT = Path(__file__).resolve().parents[1]
PARAPHRASES = ROOT / "data" / "grounding" / "paraphrases.jsonl"
THRESHOLDS = tuple(round(0.50 + 0.05 * k, 2) for k in range(9))


class Paraphrase(BaseModel):
    id: str
    """The abstract's id in the index (``pqal-N`` / ``pqaa-N``)."""
    question: str


@dataclass(frozen=True)
class Probe:
    question: str
    similarity: float
    covered: bool
    """The best passage answers the question (its own study, or it holds a key fact)."""
    kind: str


def _holds_a_key_fact(hit: Hit, case: EvalCase) -> bool:
    text = f"{hit.title} {hit.text}".lower()
    return any(any(alt.lower() in text for alt in fact) for fact in case.key_facts)


def probe(search, paraphrases: list[Paraphrase], direct: list[EvalCase]) -> list[Probe]:
    """The best passage for every question, and whether it covers the question."""
    titles = {a.id: a.title for a in load_abstracts()}
    probes = []
    for item in paraphrases:
        (hit,) = search(item.question, k=1)
        own = hit.title == titles[item.id]
        probes.append(Probe(item.question, hit.similarity, own, "paraphrase"))
    for case in direct:
        (hit,) = search(case.query, k=1)
        probes.append(Probe(case.query, hit.similarity, _holds_a_key_fact(hit, case), "direct"))
    return probes


def sweep(probes: list[Probe], thresholds: tuple[float, ...] = THRESHOLDS) -> pd.DataFrame:
    """Per threshold: right and wrong groundings, per question set."""
    frame = pd.DataFrame([p.__dict__ for p in probes])
    para = frame[frame["kind"] == "paraphrase"]
    direct = frame[frame["kind"] == "direct"]
    rows = []
    for t in thresholds:
        grounded = frame[frame["similarity"] >= t]
        rows.append(
            {
                "threshold": t,
                "paraphrases on their own study": int(
                    ((para["similarity"] >= t) & para["covered"]).sum()
                ),
                "paraphrases on a wrong study": int(
                    ((para["similarity"] >= t) & ~para["covered"]).sum()
                ),
                "direct questions grounded": int((direct["similarity"] >= t).sum()),
                "direct, passage without the answer": int(
                    ((direct["similarity"] >= t) & ~direct["covered"]).sum()
                ),
                "wrong share of groundings": round(float((~grounded["covered"]).mean()), 2)
                if len(grounded)
                else None,
            }
        )
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    settings = Settings()
    index = get_index(settings.data_dir, settings.literature_index_size)
    paraphrases = load_jsonl(PARAPHRASES, Paraphrase)
    direct = [c for c in load_eval_cases() if c.category == "direct"]
    probes = probe(index.search, paraphrases, direct)
    table = sweep(probes)
    para = [p.similarity for p in probes if p.kind == "paraphrase"]
    others = [p.similarity for p in probes if p.kind == "direct"]
    sys.stdout.write(
        f"{len(paraphrases)} paraphrases (best passage {min(para):.2f}–{max(para):.2f}), "
        f"{len(direct)} direct questions ({min(others):.2f}–{max(others):.2f}); "
        f"index of {settings.literature_index_size} abstracts; "
        f"current threshold {settings.grounding_threshold}\n\n"
    )
    sys.stdout.write(markdown_table(table) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""How close must an offline passage be before a direct answer rests on it?

``Settings.grounding_threshold`` decides when a direct knowledge answer cites the best
passage of the offline literature index instead of carrying the "unverified" label, and
``Settings.page_grounding_threshold`` the same for the condition pages. Set too low,
answers cite a source about something else; too high, a source that does answer the
question is ignored. No model is involved. Each source gets two question sets:

- questions whose right source is known: for the index, ``data/grounding/paraphrases.jsonl``
  (questions written for this project, each restating one study in other words); for the
  pages, ``data/kb/eval_queries.jsonl`` (symptoms described in everyday words);
- the evaluation's dev-split direct-knowledge questions (``data/eval/cases.jsonl``): a passage
  covers one only if it contains one of the case's key facts.

For each threshold: how many known-answer questions are grounded on their own source, how
many on a wrong one, and how many direct questions on a passage that does not cover them.

    python -m experiments.grounding_threshold
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from pydantic import BaseModel

from docgemma.agent.knowledge import about_the_question
from docgemma.config import Settings
from docgemma.kb import Role, get_knowledge_base
from docgemma.kb.quality import load_eval_queries
from docgemma.tools.literature_index import get_index, load_abstracts
from experiments.cases import load_jsonl
from experiments.evaluation.cases import EvalCase, load_eval_cases
from experiments.report import markdown_table

ROOT = Path(__file__).resolve().parents[1]
PARAPHRASES = ROOT / "data" / "grounding" / "paraphrases.jsonl"
THRESHOLDS = tuple(round(0.50 + 0.05 * k, 2) for k in range(9))
PAGE_THRESHOLDS = tuple(round(0.40 + 0.05 * k, 2) for k in range(9))


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
    relevant: bool = True
    """The passage passes the relevance check that a grounding also needs
    (``docgemma.agent.knowledge.about_the_question``)."""


def _holds_a_key_fact(text: str, case: EvalCase) -> bool:
    return any(any(alt.lower() in text.lower() for alt in fact) for fact in case.key_facts)


def probe(
    settings: Settings, search, paraphrases: list[Paraphrase], direct: list[EvalCase]
) -> list[Probe]:
    """The best passage for every question, and whether it covers the question."""
    titles = {a.id: a.title for a in load_abstracts()}
    probes = []
    for item in paraphrases:
        (hit,) = search(item.question, k=1)
        own = hit.title == titles[item.id]
        relevant = about_the_question(settings, item.question, hit.title, hit.text)
        probes.append(Probe(item.question, hit.similarity, own, "paraphrase", relevant))
    for case in direct:
        (hit,) = search(case.query, k=1)
        covered = _holds_a_key_fact(f"{hit.title} {hit.text}", case)
        relevant = about_the_question(settings, case.query, hit.title, hit.text)
        probes.append(Probe(case.query, hit.similarity, covered, "direct", relevant))
    return probes


def page_probes(settings: Settings, search, direct: list[EvalCase]) -> list[Probe]:
    """The best condition page for every question, and whether it covers the question."""
    asked = [(q.query, q.expected, None) for q in load_eval_queries()]
    asked += [(c.query, None, c) for c in direct]
    probes = []
    for query, expected, case in asked:
        hits = search(query, role=Role.CLINICIAN, k=1)
        if not hits:
            continue
        hit = hits[0]
        relevant = about_the_question(settings, query, hit.title, hit.content)
        if case is None:
            probes.append(Probe(query, hit.score, hit.page_id == expected, "paraphrase", relevant))
        else:
            covered = _holds_a_key_fact(f"{hit.title} {hit.content}", case)
            probes.append(Probe(query, hit.score, covered, "direct", relevant))
    return probes


def sweep(probes: list[Probe], thresholds: tuple[float, ...] = THRESHOLDS) -> pd.DataFrame:
    """Per threshold, with and without the relevance check: right and wrong groundings,
    per question set."""
    frame = pd.DataFrame([p.__dict__ for p in probes])
    rows = []
    for gated in (False, True):
        for t in thresholds:
            passes = (frame["similarity"] >= t) & (frame["relevant"] if gated else True)
            para, direct = (
                passes & (frame["kind"] == "paraphrase"),
                passes & (frame["kind"] == "direct"),
            )
            grounded = frame[passes]
            rows.append(
                {
                    "relevance check": "yes" if gated else "no",
                    "threshold": t,
                    "known-answer questions on their own source": int(
                        (para & frame["covered"]).sum()
                    ),
                    "on a wrong source": int((para & ~frame["covered"]).sum()),
                    "direct questions grounded": int(direct.sum()),
                    "direct, passage without the answer": int((direct & ~frame["covered"]).sum()),
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
    direct = [c for c in load_eval_cases(split="dev") if c.category == "direct"]
    probes = probe(settings, index.search, paraphrases, direct)
    sys.stdout.write(
        f"Literature index ({settings.literature_index_size} abstracts), "
        f"{len(paraphrases)} paraphrases and {len(direct)} direct questions; "
        f"current threshold {settings.grounding_threshold}\n\n"
    )
    sys.stdout.write(markdown_table(sweep(probes)) + "\n\n")
    pages = page_probes(settings, get_knowledge_base(settings).search, direct)
    sys.stdout.write(
        f"Condition pages, {sum(p.kind == 'paraphrase' for p in pages)} symptom descriptions "
        f"and {len(direct)} direct questions; current threshold "
        f"{settings.page_grounding_threshold}\n\n"
    )
    sys.stdout.write(markdown_table(sweep(pages, PAGE_THRESHOLDS)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

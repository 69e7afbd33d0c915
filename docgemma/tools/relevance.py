"""Whether a retrieved passage addresses the question: relevant sources only, or none.

A search always returns its nearest neighbours, on topic or not. A passage counts as a
source only when it is about what was asked, judged two ways at once:

- its embedding is close to the question's (cosine similarity of the all-MiniLM-L6-v2
  vectors, ``docgemma.embed``): ``Settings.relevance_threshold``;
- it holds enough of the question's topic words, each weighted by how rare it is in medical
  text (the offline PubMed abstracts): ``Settings.relevance_coverage``. A drug or condition
  name is rare and weighs most, so an abstract on heart failure covers little of a question
  on SGLT2 inhibitors in heart failure; "patient" or "treatment" weigh little.

The similarity alone let an abstract on aortic clamping through as literature on
thrombolysis for pulmonary embolism; a shared word alone lets any passage naming "heart"
answer any cardiac question. The question is taken in each of its forms — the clinician's
message and the tool's own arguments (the search a model wrote from it) — and a passage
relevant to one counts, so a search for the condition read from a patient's chart is judged
by that condition although the message only said "her condition". Both thresholds were
chosen on the evaluation's dev questions by ``python -m experiments.source_relevance``.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from docgemma.kb.lexical import stems
from docgemma.tools.base import ToolOutcome
from docgemma.tools.http import error_outcome
from docgemma.tools.outcomes import Note, ToolErrorType, error_message
from docgemma.tools.text import squash

log = logging.getLogger(__name__)

PASSAGE_CHARS = 600
"""What is embedded of a passage: its opening places it (the model reads 256 word pieces)."""


@dataclass(frozen=True)
class Verdict:
    """How close one passage is to the question."""

    similarity: float
    """The best cosine similarity between the passage and any form of the question."""
    coverage: float
    """The largest share, 0 to 1, of one form's topic-word weight that the passage holds."""

    def relevant(self, threshold: float, coverage: float) -> bool:
        return self.similarity >= threshold and self.coverage >= coverage


def asked_forms(question: str | None, *arguments: str | None) -> list[str]:
    """The distinct, non-empty forms of what was asked: the message, then the tool's query."""
    forms: list[str] = []
    for text in (question, *arguments):
        text = squash(text)
        if text and text.lower() not in {f.lower() for f in forms}:
            forms.append(text)
    return forms


def judge(asked: Sequence[str], passages: Sequence[str], embedder=None) -> list[Verdict]:
    """One verdict per passage (blocking: embeds the texts)."""
    if not passages:
        return []
    if not asked:
        return [Verdict(0.0, 0.0) for _ in passages]
    if embedder is None:
        from docgemma.embed import get_embedder

        embedder = get_embedder()
    questions = embedder.embed(list(asked))
    texts = embedder.embed([squash(p)[:PASSAGE_CHARS] for p in passages])
    similarity = (texts @ questions.T).max(axis=1)
    forms = [stems(a) for a in asked]
    return [
        Verdict(round(float(s), 4), round(max(_coverage(f, stems(p)) for f in forms), 4))
        for s, p in zip(similarity, passages, strict=True)
    ]


def _coverage(asked: frozenset[str], passage: frozenset[str]) -> float:
    weight = word_weights()
    total = sum(weight(w) for w in asked)
    return sum(weight(w) for w in asked & passage) / total if total else 0.0


@lru_cache(maxsize=1)
def word_weights():
    """How rare each word beginning is in medical text: log inverse document frequency over
    the offline PubMed abstracts (a word no abstract has weighs most). Without them, every
    word weighs the same."""
    from docgemma.tools.literature_index import load_abstracts

    try:
        documents = [stems(f"{a.title} {a.text}") for a in load_abstracts()]
    except (FileNotFoundError, OSError) as exc:
        log.warning("no abstracts to weigh words by (%s); all words weigh the same", exc)
        return lambda _word: 1.0
    frequency = Counter(w for d in documents for w in d)
    size = len(documents) + 1
    return lambda word: math.log(size / (frequency.get(word, 0) + 1))


def relevant_indexes(
    settings: Any, asked: Sequence[str], passages: Sequence[str]
) -> list[tuple[int, Verdict]]:
    """Blocking: the passages that address the question, by position, with their verdicts."""
    verdicts = judge(asked, passages)
    return [
        (n, v)
        for n, v in enumerate(verdicts)
        if v.relevant(settings.relevance_threshold, settings.relevance_coverage)
    ]


def not_covered(label: str, entity: str, searched: str) -> ToolOutcome:
    """The result when sources answered but none of what they hold is about the question:
    no finding is listed, and the clinician is told what was searched."""
    return error_outcome(
        ToolErrorType.NOT_FOUND,
        label,
        entity=entity,
        detail=f"nothing relevant in {searched}",
        message=error_message(Note.NOT_COVERED, label, entity=entity, reason=searched),
    )

"""Retrieval quality on the project's lay-language symptom descriptions (no model).

The thresholds sit below the measured figures, which are in docs/architecture.md.
"""

from __future__ import annotations

import logging
import re

from docgemma.kb.corpus import load_corpus
from docgemma.kb.quality import evaluate, load_eval_queries
from docgemma.kb.store import KnowledgeBase

log = logging.getLogger(__name__)
RUN = 5


def _runs(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9']+", text.lower())
    return {tuple(words[i : i + RUN]) for i in range(len(words) - RUN + 1)}


def test_eval_set_is_large_lay_and_points_at_real_pages() -> None:
    queries = load_eval_queries()
    pages = {p.page_id: p for p in load_corpus()}
    assert len(queries) >= 60
    assert {q.expected for q in queries} <= set(pages)
    page_runs = set().union(*(_runs(p.markdown()) for p in pages.values()))
    for q in queries:  # descriptions are not lifted from the pages: no shared 5-word run
        assert not _runs(q.query) & page_runs, q.query


def test_expected_page_in_top_5_for_95_percent_and_top_1_for_85_percent(
    kb: KnowledgeBase,
) -> None:
    report = evaluate(kb, load_eval_queries())
    log.info("knowledge-base retrieval: %s", report.summary())
    assert report.top5_rate >= 0.95, report.misses
    assert report.top1_rate >= 0.85, report.misses  # 0.744 by similarity alone

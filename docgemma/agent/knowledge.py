"""Grounding a direct knowledge answer in an offline source, when one covers the question.

Small models recall facts badly, so on a profile that may not answer from memory a
knowledge answer rests on a retrieved passage, cited, or says that none covers it. Two
offline sources are asked, in order: the condition pages of the knowledge base (above
``Settings.page_grounding_threshold``; written for symptoms and when to get help, they
cover "What are the symptoms of pneumonia?"), then the literature index (above
``Settings.grounding_threshold``). Either passage must also be about the question by the
measure the tools' sources pass (``docgemma.tools.relevance``), so a close passage on
another topic does not count; both thresholds were measured with that check in place.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from docgemma.config import Settings
from docgemma.kb import Role, get_knowledge_base
from docgemma.tools.literature_index import PROVENANCE, get_index
from docgemma.tools.relevance import judge

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Grounding:
    title: str
    text: str
    similarity: float
    provenance: str
    kind: str = "literature"
    """The ``Source.kind`` it is listed as."""

    def source(self) -> dict[str, str]:
        """The sources-list entry; a condition page's provenance names the page already."""
        title = self.provenance if self.kind == "reference" else f"{self.title} — {self.provenance}"
        return {"title": title, "kind": self.kind}


KnowledgeSource = Callable[[str], Awaitable[Grounding | None]]
"""The best passage covering a question, or None when nothing covers it well enough."""


def about_the_question(settings: Settings, question: str, title: str, text: str) -> bool:
    """The passage is about what was asked: close to it and holding its topic words
    (``docgemma.tools.relevance``), its title counted as part of it."""
    [verdict] = judge([question], [f"{title}. {text}"])
    return verdict.relevant(settings.relevance_threshold, settings.relevance_coverage)


def page_passage(settings: Settings, question: str) -> Grounding | None:
    """The best-matching section of the condition page that covers ``question``, if any."""
    kb = get_knowledge_base(settings)
    hits = kb.search(question, role=Role.CLINICIAN, k=1)
    if not hits or hits[0].score < settings.page_grounding_threshold:
        return None
    hit = hits[0]
    if not about_the_question(settings, question, hit.title, hit.content):
        return None
    return Grounding(hit.title, hit.content, round(hit.score, 3), hit.source, kind="reference")


def index_passage(settings: Settings, question: str) -> Grounding | None:
    """The literature index's abstract that covers ``question``, if any."""
    hits = get_index(settings.data_dir, settings.literature_index_size).search(question, k=1)
    if not hits or hits[0].similarity < settings.grounding_threshold:
        return None
    hit = hits[0]
    if not about_the_question(settings, question, hit.title, hit.text):
        return None
    return Grounding(hit.title, hit.text, round(hit.similarity, 3), PROVENANCE)


PASSAGES: tuple[Callable[[Settings, str], Grounding | None], ...] = (page_passage, index_passage)
"""The offline sources in the order they are asked."""


def offline_knowledge(settings: Settings, timeout_s: float = 2.0) -> KnowledgeSource:
    """The condition pages, then the literature index; not ready in time → no grounding."""

    def best(question: str) -> Grounding | None:
        for passage in PASSAGES:
            try:
                found = passage(settings, question)
            except Exception:  # a broken store costs its grounding, never the turn
                log.warning("offline source %s failed", passage.__name__, exc_info=True)
                continue
            if found is not None:
                return found
        return None

    async def lookup(question: str) -> Grounding | None:
        try:
            return await asyncio.wait_for(asyncio.to_thread(best, question), timeout_s)
        except TimeoutError:
            log.info("no offline grounding for this question: not ready in %.1f s", timeout_s)
            return None

    return lookup


def knowledge_for(settings: Settings) -> KnowledgeSource | None:
    """The knowledge source the agent runs with: for every model that may not answer from
    memory (``Settings.answers_from_memory``), a direct question is looked up first.

    The app, the API, the CLI and the evaluation all ask here, so the evaluation scores
    the knowledge answers a clinician is shown.
    """
    if settings.answers_from_memory():
        return None
    # the only way such a model answers a direct question: it waits as long as a tool would
    return offline_knowledge(settings, timeout_s=settings.tool_timeout_s)

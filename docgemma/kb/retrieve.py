"""Model-assisted retrieval: topic classification, filtering and query rewriting.

The model classifies and code decides. The model picks the query's category and
sub-category (constrained to the known ones in the role's scope) and, when more than
``FILTER_ABOVE`` pages are candidates, which of them are relevant (constrained to
their ids). Whether anything is relevant, and whether to rewrite and try again, is
decided by code from the similarity scores, with at most ``MAX_ATTEMPTS`` passes.
A model failure never loses the search: that step falls back and says so in the notes.
"""

from __future__ import annotations

import asyncio
import logging
from functools import lru_cache
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field, create_model

from docgemma.kb import prompts
from docgemma.kb.models import Attempt, KBHit, Retrieval
from docgemma.kb.topics import Role, categories_for, load_topics
from docgemma.llm.errors import LLMError
from docgemma.llm.types import Message

log = logging.getLogger(__name__)

RELEVANCE_THRESHOLD = 0.3
"""A page whose best section scores below this is not relevant. Measured on the demo corpus:
off-topic texts (greetings, tax, cars, drug dosing) top out near 0.26, while 95% of the
lay-language symptom descriptions score 0.38 or more."""
MAX_ATTEMPTS = 2
FILTER_ABOVE = 3
"""With this many candidates or fewer, all are kept without asking the model."""
TEMPERATURE = 0.0  # operational decisions: classification and filtering are deterministic


Confidence = Literal["high", "medium", "low"]


class SearchQuery(BaseModel):
    query: str = Field(min_length=1, max_length=160, description="Short search query")


@lru_cache(maxsize=64)
def choice_model(name: str, field: str, values: tuple[str, ...]) -> type[BaseModel]:
    """A one-field schema whose value must be one of ``values`` (built once per set)."""
    return create_model(name, **{field: (Literal[values], ...)})


@lru_cache(maxsize=64)
def selection_model(ids: tuple[str, ...]) -> type[BaseModel]:
    item: Any = Literal[ids]
    return create_model(
        "KBSelection", page_ids=(list[item], Field(min_length=1, max_length=len(ids)))
    )


async def ask(llm: Any, prompt: str, schema: type[BaseModel]) -> BaseModel:
    """One constrained, deterministic model decision on a one-message prompt."""
    generation = await llm.structured(
        [Message(role="user", content=prompt)], schema, temperature=TEMPERATURE
    )
    return generation.value


@lru_cache(maxsize=64)
def rated_choice_model(name: str, field: str, values: tuple[str, ...]) -> type[BaseModel]:
    """``choice_model`` followed by the model's confidence and a short reason: the label is
    written first, so the rating cannot change it."""
    return create_model(
        name,
        **{field: (Literal[values], ...)},
        confidence=(Confidence, ...),
        reason=(str, Field(max_length=100)),
    )


async def _choose(
    llm: Any, prompt: str, name: str, field: str, values: tuple[str, ...], rated: bool,
    notes: list[str],
) -> str | None:  # fmt: skip
    """The model's pick among ``values``; rated, a pick made with low confidence is noted
    and given up (None), so the search runs without that filter."""
    schema = (rated_choice_model if rated else choice_model)(name, field, values)
    answer = await ask(llm, prompt, schema)
    value = getattr(answer, field)
    if not rated:
        return value
    confidence, reason = answer.confidence, answer.reason  # type: ignore[attr-defined]
    notes.append(f"{field} {value}: {confidence} confidence ({reason})")
    return None if confidence == "low" else value


async def classify_topic(
    llm: Any, query: str, role: Role | None, notes: list[str], *, rated: bool = False
) -> tuple[str | None, str | None]:
    """The model's category and sub-category for ``query``, within the role's scope;
    ``rated``, each with its confidence and reason, and a low-confidence one left out."""
    topics = load_topics()
    allowed = categories_for(role, topics)
    try:
        if len(allowed) == 1:
            category: str | None = allowed[0]
        else:
            lines = "\n".join(f"- {c}: {topics[c].label}" for c in allowed)
            prompt = prompts.CLASSIFY_CATEGORY.format(choices=lines, query=query)
            category = await _choose(
                llm, prompt, "KBCategory", "category", tuple(allowed), rated, notes
            )
        if category is None:
            return None, None
        subs = topics[category].subcategories
        if len(subs) == 1:
            return category, next(iter(subs))
        lines = "\n".join(f"- {key}: {label}" for key, label in subs.items())
        prompt = prompts.CLASSIFY_SUBCATEGORY.format(
            category=topics[category].label, choices=lines, query=query
        )
        sub = await _choose(llm, prompt, "KBSubcategory", "subcategory", tuple(subs), rated, notes)
        return category, sub
    except LLMError as exc:
        log.warning("topic classification failed: %s", exc)
        notes.append("topic classification unavailable; searched without a topic filter")
        return None, None


def merge(*results: list[KBHit]) -> list[KBHit]:
    """One hit per page (its most relevant), most relevant first; ties broken by page id."""
    best: dict[str, KBHit] = {}
    for hits in results:
        for hit in hits:
            if hit.page_id not in best or hit.relevance > best[hit.page_id].relevance:
                best[hit.page_id] = hit
    return sorted(best.values(), key=lambda h: (-h.relevance, h.page_id))


async def filter_candidates(
    llm: Any, query: str, candidates: list[KBHit], notes: list[str]
) -> list[KBHit]:
    """The candidates the model keeps, in score order; all of them if the model fails."""
    if len(candidates) <= FILTER_ABOVE:
        return candidates
    ids = tuple(h.page_id for h in candidates)
    lines = "\n".join(f"- {h.page_id}: {h.title} ({h.content[:160]})" for h in candidates)
    try:
        answer = await ask(
            llm, prompts.FILTER_CANDIDATES.format(choices=lines, query=query), selection_model(ids)
        )
    except LLMError as exc:
        log.warning("candidate filtering failed: %s", exc)
        notes.append("candidate filtering unavailable; kept every relevant page")
        return candidates
    kept = set(answer.page_ids)  # type: ignore[attr-defined]
    return [h for h in candidates if h.page_id in kept]


async def rewrite_query(llm: Any, query: str, tried: list[str], notes: list[str]) -> str | None:
    previous = "".join(f"Already tried: {t}\n" for t in tried)
    try:
        answer = await ask(
            llm, prompts.REWRITE_QUERY.format(query=query, tried=previous), SearchQuery
        )
    except LLMError as exc:
        log.warning("query rewriting failed: %s", exc)
        notes.append("query rewriting unavailable; no further attempt")
        return None
    rewritten = " ".join(answer.query.split())  # type: ignore[attr-defined]
    return rewritten if rewritten and rewritten not in tried else None


class PageSearch(Protocol):
    """What retrieval needs from a store: ``docgemma.kb.store.KnowledgeBase.search``.

    A Protocol rather than the store's class, so the store knows nothing of model-assisted
    retrieval and this module nothing of how pages are stored and indexed."""

    def search(
        self,
        query: str,
        *,
        role: Role | None = None,
        k: int = 5,
        category: str | None = None,
        subcategory: str | None = None,
    ) -> list[KBHit]: ...


async def retrieve(
    kb: PageSearch, query: str, *, llm: Any, role: Role | None = None, k: int = 5
) -> Retrieval:
    """Classify the topic, search with and without the sub-category, filter, retry once."""
    query = " ".join(query.split())
    attempts: list[Attempt] = []
    search_query: str | None = query
    while search_query and len(attempts) < MAX_ATTEMPTS:
        attempt, kept = await search_once(
            kb, search_query, query, llm=llm, role=role, k=k, rewritten=bool(attempts)
        )
        attempts.append(attempt)
        if kept:
            return Retrieval(query=query, hits=kept, attempts=attempts, found=True)
        if len(attempts) < MAX_ATTEMPTS:
            tried = [a.query for a in attempts]
            search_query = await rewrite_query(llm, query, tried, attempt.notes)
    return Retrieval(query=query, hits=[], attempts=attempts, found=False)


async def search_once(
    kb: PageSearch,
    search_query: str,
    question: str,
    *,
    llm: Any,
    role: Role | None,
    k: int,
    rewritten: bool = False,
    rated: bool = False,
) -> tuple[Attempt, list[KBHit]]:
    """One pass: classify ``search_query``'s topic, search with and without it, keep the
    pages above the threshold and let the model filter them against ``question``."""
    attempt = Attempt(query=search_query, rewritten=rewritten)
    category, sub = await classify_topic(llm, search_query, role, attempt.notes, rated=rated)
    attempt.category, attempt.subcategory = category, sub
    narrow: list[KBHit] = []
    if category is not None:
        narrow = await asyncio.to_thread(
            kb.search, search_query, role=role, k=k, category=category, subcategory=sub
        )
    broad = await asyncio.to_thread(kb.search, search_query, role=role, k=k)
    candidates = [h for h in merge(narrow, broad) if h.score >= RELEVANCE_THRESHOLD][:k]
    attempt.candidates = [h.page_id for h in candidates]
    kept = await filter_candidates(llm, question, candidates, attempt.notes) if candidates else []
    attempt.selected = [h.page_id for h in kept]
    return attempt, kept

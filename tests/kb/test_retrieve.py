"""Model-assisted retrieval: the scripted backend for the logic, one real-model run.

The knowledge base is real (Chroma and MiniLM); only the model's answers are scripted,
and each scripted answer is validated against the schema the code asked for.
"""

from __future__ import annotations

from typing import get_args

import pytest

from docgemma.kb.models import Retrieval
from docgemma.kb.retrieve import MAX_ATTEMPTS, RELEVANCE_THRESHOLD, merge, retrieve
from docgemma.kb.store import KnowledgeBase
from docgemma.kb.topics import Role, load_topics
from docgemma.llm.errors import ModelUnavailable, StructuredOutputError
from docgemma.llm.scripted import ScriptedBackend

CHEST = "crushing pain in my chest going down my left arm and I'm sweating"
NONSENSE = "how do I file my quarterly tax return"


def _choices(call, field: str) -> tuple[str, ...]:
    annotation = call.schema.model_fields[field].annotation
    inner = get_args(annotation)
    return get_args(inner[0]) if inner and get_args(inner[0]) else inner


async def test_classify_search_both_ways_then_filter_more_than_three(kb: KnowledgeBase) -> None:
    llm = ScriptedBackend(
        [{"category": "cardiovascular"}, {"subcategory": "heart"}, {"page_ids": ["heart-attack"]}]
    )
    result = await retrieve(kb, CHEST, llm=llm)
    classify, sub, choose = llm.calls
    assert set(_choices(classify, "category")) == set(load_topics())
    assert set(_choices(sub, "subcategory")) == {"heart", "blood_vessels"}
    attempt = result.attempts[0]
    assert (attempt.category, attempt.subcategory) == ("cardiovascular", "heart")
    # the unfiltered search brought in the emergency page the topic filter would have missed
    assert "heart-attack" in attempt.candidates and "angina" in attempt.candidates
    assert len(attempt.candidates) > 3
    assert set(_choices(choose, "page_ids")) == set(attempt.candidates)
    assert result.found and [h.page_id for h in result.hits] == ["heart-attack"]
    assert attempt.selected == ["heart-attack"] and len(result.attempts) == 1


async def test_role_scopes_the_category_choice_and_the_search(kb: KnowledgeBase) -> None:
    llm = ScriptedBackend([{"category": "dental"}, {"subcategory": "teeth"}])
    result = await retrieve(
        kb, "throbbing back tooth, my cheek is swollen", llm=llm, role=Role.DENTAL_PATIENT, k=3
    )
    assert set(_choices(llm.calls[0], "category")) == {"dental", "infections", "emergencies"}
    assert len(llm.calls) == 2  # three candidates or fewer: no filtering call
    assert result.found and result.hits[0].page_id == "dental-abscess"
    assert {h.category for h in result.hits} <= {"dental", "infections", "emergencies"}


async def test_nothing_relevant_rewrites_once_and_stops_after_two_attempts(
    kb: KnowledgeBase,
) -> None:
    llm = ScriptedBackend(
        [
            {"category": "digestive"},
            {"subcategory": "stomach"},
            {"query": "tax form deadlines"},
            {"category": "digestive"},
            {"subcategory": "bowel"},
        ]
    )
    result = await retrieve(kb, NONSENSE, llm=llm)
    assert not result.found and result.hits == []
    assert [a.query for a in result.attempts] == [NONSENSE, "tax form deadlines"]
    assert [a.rewritten for a in result.attempts] == [False, True]
    assert len(result.attempts) == MAX_ATTEMPTS and len(llm.calls) == 5


async def test_a_rewritten_query_can_find_what_the_first_missed(kb: KnowledgeBase) -> None:
    llm = ScriptedBackend(
        [
            {"category": "skin"},
            {"subcategory": "rashes"},
            {"query": "burning pain passing urine, needing to pee often"},
            {"category": "urinary"},
            {"subcategory": "bladder"},
            {"page_ids": ["cystitis"]},
        ]
    )
    result = await retrieve(kb, "it's the plumbing again", llm=llm)
    assert result.found and result.hits[0].page_id == "cystitis"
    assert result.attempts[0].candidates == [] and result.attempts[1].rewritten
    assert "rewrite it as a short search query" in llm.calls[2].prompt.lower()


async def test_model_failures_fall_back_without_losing_the_search(kb: KnowledgeBase) -> None:
    llm = ScriptedBackend(
        [ModelUnavailable("down"), StructuredOutputError("bad json"), ModelUnavailable("down")]
    )
    result = await retrieve(kb, CHEST, llm=llm)
    attempt = result.attempts[0]
    assert attempt.category is None
    assert result.found and {"heart-attack", "angina"} <= {h.page_id for h in result.hits}
    assert any("classification unavailable" in n for n in attempt.notes)
    assert any("filtering unavailable" in n for n in attempt.notes)


def test_merge_keeps_each_page_once_with_its_most_relevant_hit(kb: KnowledgeBase) -> None:
    narrow = kb.search(CHEST, category="cardiovascular", k=3)
    broad = kb.search(CHEST, k=3)
    merged = merge(narrow, broad)
    ids = [h.page_id for h in merged]
    assert len(ids) == len(set(ids)) and set(ids) == {h.page_id for h in narrow + broad}
    assert [h.relevance for h in merged] == sorted((h.relevance for h in merged), reverse=True)
    assert merged[0].score > RELEVANCE_THRESHOLD


@pytest.mark.real_model
async def test_retrieve_on_the_real_embedded_model(kb: KnowledgeBase, real_llm) -> None:
    result = await retrieve(kb, CHEST, llm=real_llm)
    assert isinstance(result, Retrieval) and result.found
    attempt = result.attempts[0]
    assert attempt.category in load_topics()
    assert attempt.subcategory in load_topics()[attempt.category].subcategories
    assert result.hits and {h.page_id for h in result.hits} <= set(attempt.candidates)
    assert {"heart-attack", "angina"} & set(attempt.candidates)
    assert all(h.score >= RELEVANCE_THRESHOLD for h in result.hits)

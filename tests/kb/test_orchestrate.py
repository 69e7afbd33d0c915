"""Retrieval steered by the model within code's bounds, and the search the triage graph gets.

The knowledge base is real (Chroma and MiniLM); the model's answers are scripted and each
is validated against the schema code asked for, so a step code does not allow cannot be
scripted into the run.
"""

from __future__ import annotations

from typing import get_args

import pytest

from docgemma.kb.assisted import AssistedSearch
from docgemma.kb.orchestrate import MAX_RETRIES, Action, allowed_actions, orchestrate
from docgemma.kb.store import KnowledgeBase
from docgemma.llm.errors import ModelUnavailable
from docgemma.llm.scripted import ScriptedBackend

CHEST = "crushing pain in my chest going down my left arm and I'm sweating"
NONSENSE = "how do I file my quarterly tax return"


def step(action: Action, reason: str = "because") -> dict:
    return {"action": action.value, "reason": reason}


def rated(field: str, value: str, confidence: str = "high") -> dict:
    return {field: value, "confidence": confidence, "reason": "fits"}


def offered(call) -> set[str]:
    return set(get_args(call.schema.model_fields["action"].annotation))


@pytest.mark.parametrize(
    ("waiting", "searched", "left", "allowed"),
    [
        ("q", False, MAX_RETRIES, [Action.CREATE_QUERY, Action.RETRIEVE]),
        ("q", True, 1, [Action.RETRIEVE]),  # a written query is searched before anything else
        ("q", False, 0, [Action.RETRIEVE]),
        (None, True, 1, [Action.CREATE_QUERY, Action.COMPOSE]),
        (None, True, 0, [Action.COMPOSE]),
    ],
)
def test_code_bounds_the_actions_offered(waiting, searched, left, allowed) -> None:
    assert allowed_actions(waiting, searched, left) == allowed


async def test_the_model_steers_search_then_compose_with_rated_topics(kb: KnowledgeBase) -> None:
    llm = ScriptedBackend(
        [
            step(Action.RETRIEVE),
            rated("category", "cardiovascular"),
            rated("subcategory", "heart"),
            {"page_ids": ["heart-attack", "angina"]},
            step(Action.COMPOSE, "the heart attack page answers it"),
        ]
    )
    result = await orchestrate(kb, CHEST, llm=llm)
    assert offered(llm.calls[0]) == {"create_retrieval_query", "retrieve_kb"}
    assert offered(llm.calls[-1]) == {"create_retrieval_query", "compose_answer"}
    assert "Pages kept: " in llm.calls[-1].prompt and "New queries left: 2" in llm.calls[-1].prompt
    assert list(llm.calls[1].schema.model_fields) == ["category", "confidence", "reason"]
    assert result.found and [h.page_id for h in result.hits] == ["heart-attack", "angina"]
    (attempt,) = result.attempts
    assert (attempt.category, attempt.subcategory) == ("cardiovascular", "heart")
    assert any("high confidence" in n for n in attempt.notes)
    assert any("the heart attack page answers it" in n for n in attempt.notes)


async def test_a_low_confidence_topic_is_not_used_as_a_filter(kb: KnowledgeBase) -> None:
    llm = ScriptedBackend(
        [
            step(Action.RETRIEVE),
            rated("category", "dental", "low"),
            {"page_ids": ["heart-attack"]},
            step(Action.COMPOSE),
        ]
    )
    result = await orchestrate(kb, CHEST, llm=llm)
    assert result.attempts[0].category is None  # searched without the topic
    assert [h.page_id for h in result.hits] == ["heart-attack"]


async def test_new_queries_stop_when_the_retries_are_spent(kb: KnowledgeBase) -> None:
    """Nothing relevant: the model may ask for new queries only MAX_RETRIES times, then code
    composes (here, an honest nothing-found) without asking."""
    topic = [rated("category", "cardiovascular"), rated("subcategory", "heart")]
    llm = ScriptedBackend(
        [
            step(Action.RETRIEVE), *topic,
            step(Action.CREATE_QUERY), {"query": "quarterly tax return filing"}, *topic,
            step(Action.CREATE_QUERY), {"query": "income tax forms"}, *topic,
        ]
    )  # fmt: skip
    result = await orchestrate(kb, NONSENSE, llm=llm)
    assert not result.found and not result.hits
    assert [a.query for a in result.attempts] == [
        NONSENSE, "quarterly tax return filing", "income tax forms",
    ]  # fmt: skip
    assert [a.rewritten for a in result.attempts] == [False, True, True]
    assert len(llm.calls) == 11  # no call for the steps code alone allows


async def test_earlier_messages_are_summed_up_by_the_model_and_steer_the_search(
    kb: KnowledgeBase,
) -> None:
    summary = "Chest pain spreading to the left arm with sweating, for an hour"
    llm = ScriptedBackend(
        [
            {"summary": summary},
            step(Action.CREATE_QUERY),
            {"query": "chest pain left arm sweating"},
            rated("category", "cardiovascular"),
            rated("subcategory", "heart"),
            {"page_ids": ["heart-attack"]},
            step(Action.COMPOSE),
        ]
    )
    earlier = ["my chest hurts", "it goes down my left arm", "I'm sweating a lot"]
    result = await orchestrate(kb, "is it serious?", llm=llm, earlier=earlier)
    first, steer, rewrite = llm.calls[:3]
    assert all(m in first.prompt for m in earlier) and "is it serious?" in first.prompt
    assert f"Conversation so far: {summary}" in steer.prompt
    assert summary in rewrite.prompt
    assert result.context_summary == summary
    assert [a.query for a in result.attempts] == ["chest pain left arm sweating"]
    assert [h.page_id for h in result.hits] == ["heart-attack"]


async def test_without_earlier_messages_no_summary_is_asked_for(kb: KnowledgeBase) -> None:
    llm = ScriptedBackend([ModelUnavailable("down")] * 12)
    result = await orchestrate(kb, CHEST, llm=llm, earlier=["", "  "])
    assert result.context_summary == ""
    assert not any("summary" in n for a in result.attempts for n in a.notes)


async def test_a_failed_step_choice_falls_back_to_the_fixed_loops_step(kb: KnowledgeBase) -> None:
    llm = ScriptedBackend([ModelUnavailable("down")] * 12)
    result = await orchestrate(kb, CHEST, llm=llm, k=3)
    assert result.found and {"heart-attack", "angina"} <= {h.page_id for h in result.hits}
    assert any("retrieve_kb by code" in n for n in result.attempts[0].notes)


async def test_assisted_search_is_the_store_search_plus_retrieval(kb: KnowledgeBase) -> None:
    """The triage graph's knowledge search: the store's own search, and retrieval over it."""
    assisted = AssistedSearch(kb)
    assert assisted.search(CHEST, k=2) == kb.search(CHEST, k=2)
    llm = ScriptedBackend([ModelUnavailable("down")] * 3)
    result = await assisted.retrieve(CHEST, llm=llm, k=3)
    assert result.found and {"heart-attack", "angina"} <= {h.page_id for h in result.hits}
    assert len(llm.calls) == 1  # topic classification; three candidates need no filtering


async def test_the_steered_flow_is_chosen_by_the_assisted_search(kb: KnowledgeBase) -> None:
    llm = ScriptedBackend([ModelUnavailable("down")] * 12)
    result = await AssistedSearch(kb, flow="steered").retrieve(CHEST, llm=llm, k=3)
    assert result.found and "choice unavailable" in " ".join(result.attempts[0].notes)


@pytest.mark.real_model
async def test_the_steered_flow_on_the_real_embedded_model(kb: KnowledgeBase, real_llm) -> None:
    earlier = ["I was carrying boxes upstairs an hour ago", "now my chest feels tight"]
    result = await orchestrate(kb, CHEST, llm=real_llm, earlier=earlier)
    assert result.context_summary  # written by the model, within its schema's bounds
    assert 1 <= len(result.attempts) <= 1 + MAX_RETRIES
    assert all(h.page_id in {p for a in result.attempts for p in a.selected} for h in result.hits)
    assert any("confidence" in n for a in result.attempts for n in a.notes)

"""Offline grounding of direct answers: a broken source costs its grounding, never the turn."""

from __future__ import annotations

import sqlite3
import time

import pytest

from docgemma.agent import knowledge
from docgemma.agent.knowledge import Grounding, offline_knowledge

PAGE = Grounding("Pneumonia", "Cough, fever, fast breathing.", 0.8, "NHS", kind="reference")


def _broken(error: Exception):
    def passage(settings, question):
        raise error

    return passage


@pytest.mark.parametrize(
    "error",
    [RuntimeError("chroma collection missing"), sqlite3.OperationalError("locked"), KeyError("x")],
)
async def test_a_failing_source_is_skipped_and_the_next_one_asked(
    settings, monkeypatch, error
) -> None:
    asked: list[str] = []

    def literature(settings, question):
        asked.append(question)
        return PAGE

    monkeypatch.setattr(knowledge, "PASSAGES", (_broken(error), literature))
    assert await offline_knowledge(settings)("What are the symptoms of pneumonia?") == PAGE
    assert asked == ["What are the symptoms of pneumonia?"]


async def test_every_source_failing_or_silent_means_no_grounding(settings, monkeypatch) -> None:
    monkeypatch.setattr(
        knowledge, "PASSAGES", (_broken(RuntimeError("down")), lambda settings, q: None)
    )
    assert await offline_knowledge(settings)("What innervates the diaphragm?") is None


async def test_a_source_too_slow_means_no_grounding(settings, monkeypatch) -> None:
    def slow(settings, question):
        time.sleep(0.3)
        return PAGE

    monkeypatch.setattr(knowledge, "PASSAGES", (slow,))
    assert await offline_knowledge(settings, timeout_s=0.05)("Asthma?") is None


@pytest.mark.parametrize(
    ("question", "page"),
    [
        ("What are the symptoms of pneumonia?", "Pneumonia"),
        ("What causes gout?", "Gout"),
        ("What is the first-line treatment for type 2 diabetes?", None),  # a symptoms page
        ("What is the half-life of amiodarone?", None),
    ],
)
def test_a_condition_page_grounds_only_the_question_it_answers(
    indexed_settings, question, page
) -> None:
    """Real pages and embedder: the nearest section is used when it is close to the question
    and about it; otherwise the answer has no page to rest on."""
    found = knowledge.page_passage(indexed_settings, question)
    assert (found.title if found else None) == page


def test_the_nearest_passage_must_also_be_about_the_question(settings) -> None:
    title, text = "Gout", "A build-up of uric acid forms sharp crystals in the joints."
    assert knowledge.about_the_question(settings, "What causes gout?", title, text)
    assert not knowledge.about_the_question(settings, "How is psoriasis treated?", title, text)

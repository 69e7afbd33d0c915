"""The dev/test split: recorded in the data, stratified, and never named by the project.

This file is the one place allowed to handle test-split ids and questions (by loading
them, never by naming them), so the scan leaves it out.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from experiments.evaluation.cases import Category, load_eval_cases
from experiments.evaluation.refusal_check import load_requests
from experiments.evaluation.sessions import load_sessions
from experiments.evaluation.split import (
    repository_mentions,
    repository_texts,
    stratified_split,
)

CASES = load_eval_cases()
SESSIONS = load_sessions()
REQUESTS = load_requests()


def test_no_test_split_case_or_session_is_named_in_code_prompts_word_lists_or_tests():
    texts = repository_texts(exclude=[Path(__file__)])
    ids = [c.id for c in CASES if c.split == "test"]
    questions = [c.query for c in CASES if c.split == "test"]
    for session in SESSIONS:
        if session.split == "test":
            ids.append(session.id)
            questions.extend(turn.message for turn in session.turns)
    for request in REQUESTS:
        if request.split == "test":
            ids.append(request.id)
            questions.append(request.text)
    mentions = repository_mentions(ids, questions, texts)
    assert not mentions, f"test-split cases named in the project: {mentions}"


def test_the_guard_finds_an_id_and_a_question_but_not_a_longer_id():
    texts = {"a.py": "case_id = 'renal-01'  # which dose of gabapentin in ckd stage 4?"}
    found = repository_mentions(
        ["renal-01", "renal-0", "renal-011"],
        ["Which dose of gabapentin in  CKD stage 4?", "thanks"],
        texts,
    )
    assert set(found) == {"renal-01", "Which dose of gabapentin in  CKD stage 4?"}


WRITTEN_FOR_TEST = {Category.REFUSAL, Category.NO_SOURCE}
"""Kinds first written for the test split; dev cases of them were written later, to tune on."""


def test_every_case_has_a_split_and_each_original_category_has_both():
    splits = Counter((c.category, c.split) for c in CASES if c.specialty is None)
    for category in {c.category for c in CASES if c.specialty is None} - WRITTEN_FOR_TEST:
        assert splits[(category, "dev")] and splits[(category, "test")], category


def test_cases_written_by_specialty_are_all_test_and_cover_the_specialties():
    written = [c for c in CASES if c.specialty is not None]
    assert len(written) >= 100
    assert {c.split for c in written} == {"test"}
    specialties = Counter(c.specialty for c in written)
    wanted = {
        "cardiology",
        "renal",
        "hepatology",
        "obstetrics",
        "paediatrics",
        "infectious disease",
        "psychiatry",
        "emergency",
    }
    assert wanted <= set(specialties)
    assert min(specialties[s] for s in wanted) >= 8
    kinds = Counter(c.category for c in written)
    assert kinds["refusal"] >= 6 and kinds["no_source"] >= 6 and kinds["missing_info"] >= 6


def test_stratified_split_is_deterministic_stratified_and_keeps_seen_cases_in_dev():
    categories = {f"a-{n}": "a" for n in range(9)} | {f"b-{n}": "b" for n in range(6)}
    first = stratified_split(categories, seen={"a-0", "a-1"})
    again = stratified_split(dict(reversed(categories.items())), seen={"a-1", "a-0"})
    assert first == again
    assert Counter(first[i] for i in categories if i.startswith("a-"))["test"] == 3
    assert Counter(first[i] for i in categories if i.startswith("b-"))["test"] == 2
    assert first["a-0"] == first["a-1"] == "dev"


def test_the_sessions_have_both_splits_and_enough_turns():
    assert len(SESSIONS) >= 25
    assert sum(len(s.turns) for s in SESSIONS) >= 150
    assert {s.split for s in SESSIONS} == {"dev", "test"}

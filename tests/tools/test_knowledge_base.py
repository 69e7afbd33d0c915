"""Condition Knowledge Base tool: offline pages with scores and sources, real index."""

from __future__ import annotations

from pathlib import Path

import pytest
from prebuilt_indexes import seed_indexes

from docgemma.config import Settings
from docgemma.tools.base import ToolContext, ToolErrorType
from docgemma.tools.knowledge_base import SPEC, condition_of
from docgemma.tools.registry import build_registry


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> ToolContext:
    data = Path(tmp_path_factory.mktemp("kb-tool"))
    seed_indexes(data)  # the index as `make app` leaves it; its building is tested in tests/kb
    return ToolContext(settings=Settings(data_dir=data, offline=True, tool_timeout_s=600))


async def test_pages_come_back_with_scores_urgency_and_sources(ctx: ToolContext) -> None:
    args = SPEC.args(query="toddler with a barking cough and noisy breathing at night")
    outcome = await SPEC.run(args, ctx)
    assert outcome.ok
    first = outcome.data["pages"][0]
    assert first["page_id"] == "croup" and first["severity"] == "urgent_primary_care"
    assert outcome.data["demonstration"] is True
    assert (
        outcome.formatted.splitlines()[1].startswith("[1] Croup — similarity 0.6")
        and "usual urgency: Urgent Primary Care" in outcome.formatted
    )
    assert "Demonstration content written for DocGemma" in outcome.formatted
    assert outcome.sources[0].title == "DocGemma demonstration page: Croup"
    assert all(p["score"] >= 0.3 for p in outcome.data["pages"])


async def test_unrelated_query_is_not_found_and_blank_query_is_refused(ctx: ToolContext) -> None:
    missing = await SPEC.run(SPEC.args(query="quarterly tax return deadlines"), ctx)
    assert missing.error_type is ToolErrorType.NOT_FOUND
    assert "quarterly tax return deadlines" in missing.formatted
    blank = await SPEC.run(SPEC.args(query="   "), ctx)
    assert blank.error_type is ToolErrorType.INVALID_ARGS
    assert blank.formatted == "Symptoms or a condition are needed to search the knowledge base."


@pytest.mark.parametrize(
    "query",
    [
        "What is the antidote for acetaminophen overdose?",
        "What is given as the antidote in acetaminophen poisoning?",
    ],
)
async def test_a_page_scored_close_but_sharing_no_word_is_not_returned(
    ctx: ToolContext, query: str
) -> None:
    """The anaphylaxis page scores 0.46 on the antidote question, and the model wrote an
    antidote from it; no page speaks of overdose, poisoning or antidotes."""
    outcome = await SPEC.run(SPEC.args(query=query), ctx)
    assert outcome.error_type is ToolErrorType.NOT_FOUND


@pytest.mark.parametrize(
    ("query", "page"),
    [
        ("What do the condition pages say about croup?", "croup"),
        ("Search the knowledge base: painful red swollen big toe joint overnight.", "gout"),
    ],
)
async def test_a_page_sharing_a_word_with_the_question_is_returned(
    ctx: ToolContext, query: str, page: str
) -> None:
    outcome = await SPEC.run(SPEC.args(query=query), ctx)
    assert page in [p["page_id"] for p in outcome.data["pages"]]


async def test_the_page_naming_the_described_signs_comes_first(ctx: ToolContext) -> None:
    """By similarity alone shingles came ninth, after eczema and chickenpox."""
    query = (
        "What do the condition pages say about a blistering band of rash on one side of the chest?"
    )
    outcome = await SPEC.run(SPEC.args(query=query), ctx)
    assert outcome.data["pages"][0]["page_id"] == "shingles"
    assert "Shingles" in outcome.formatted.splitlines()[1]


def test_registered_once_with_its_label_example_and_no_ehr_write() -> None:
    registry = build_registry()
    assert registry["search_knowledge_base"] is SPEC
    assert registry.label("search_knowledge_base") == "Condition Knowledge Base"
    assert "search_knowledge_base" not in registry.write_tools()
    assert SPEC.args.model_validate(SPEC.example.args)
    assert "search_knowledge_base(query: str) — Search the local knowledge base" in (
        registry.describe("full")
    )


@pytest.mark.parametrize(
    ("title", "condition"),
    [
        ("DocGemma demonstration page: Angina", "Angina"),
        (
            "Knowledge-base page: Heart attack (myocardial infarction)",
            "Heart attack (myocardial infarction)",
        ),
        ("MedlinePlus: Heart Attack", "Heart Attack"),
        ("Chest pain protocol (your organisation's document)", None),
        ("FDA drug label: aspirin", None),
    ],
)
def test_a_source_tells_which_condition_it_is_written_about(title, condition) -> None:
    assert condition_of(title) == condition

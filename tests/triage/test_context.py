"""The triage context switch: with ``full``, the reasoning reads the conversation and the
pages most serious first with their similarity, and the reply is written from that
analysis; ``compact`` (the default) reads the latest message and writes from the
condition and urgency."""

from __future__ import annotations

from dataclasses import replace

from docgemma.triage.nodes.generate import most_serious_first
from docgemma.triage.prompts import REASON_SYSTEM_FULL
from docgemma.triage.state import SourceRecord

FIRST = "I have a fever and a dry cough since Monday"
FOLLOW_UP = "Now my chest feels tight and heavy"


def page(pid: str, severity: str | None, score: float) -> SourceRecord:
    return SourceRecord(
        id=pid, title=pid, score=score, kind="kb", source="", severity=severity, content=""
    )


def test_pages_are_ordered_most_serious_first_then_by_similarity() -> None:
    pages = [
        page("cold", "Self-care", 0.7),
        page("abstract", None, 0.9),
        page("heart-attack", "A&E", 0.4),
        page("flu", "Self-care", 0.8),
        page("chest-infection", "Urgent Primary Care", 0.5),
    ]
    order = [p["id"] for p in most_serious_first(pages)]
    assert order == ["heart-attack", "chest-infection", "flu", "cold", "abstract"]


def prompts(service, kind: str) -> list[str]:
    return [c.prompt for c in service.deps.llm.calls if c.kind == kind]


async def test_full_context_reasons_over_the_conversation_and_replies_from_the_analysis(
    make_service,
) -> None:
    service = make_service(route={"action": "retrieve", "search_query": "fever cough heavy tight"})
    service.deps = replace(service.deps, context="full")
    await service.ask("t", FIRST)
    service.deps.llm.calls.clear()
    answer = await service.ask("t", FOLLOW_UP)
    [reasoning, *_] = prompts(service, "complete")
    assert REASON_SYSTEM_FULL.splitlines()[0] in reasoning
    assert FIRST in reasoning and FOLLOW_UP in reasoning  # the conversation, not one message
    assert reasoning.index("[heart-attack] Heart attack — similarity") < reasoning.index("[flu]")
    [reply] = [c for c in service.deps.llm.calls if c.kind == "generate"]
    user = reply.messages[-1].content
    assert "Clinical analysis" in user and "The symptoms match the flu page" in user
    assert answer.answer and "similarity" not in answer.answer


async def test_compact_context_is_the_default(make_service, settings) -> None:
    service = make_service()
    assert settings.triage_context == "compact" and service.deps.context == "compact"
    await service.ask("t", FIRST)
    service.deps.llm.calls.clear()
    await service.ask("t", FOLLOW_UP)
    [reasoning, *_] = prompts(service, "complete")
    assert FIRST not in reasoning and "similarity" not in reasoning
    [reply] = [c for c in service.deps.llm.calls if c.kind == "generate"]
    assert "Clinical analysis" not in reply.messages[-1].content

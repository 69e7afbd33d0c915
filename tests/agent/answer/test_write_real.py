"""The default embedded model writes cited statements from a condition page, and code keeps
only those whose quotes are in the page (one short real-model run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgemma.agent.answer.sources import Passage
from docgemma.agent.answer.statements import normalise
from docgemma.agent.answer.write import write_cited
from docgemma.agent.deps import AgentDeps
from docgemma.agent.prompts import SYNTHESIZE_SOURCES_USER, SYNTHESIZE_SYSTEM
from docgemma.config import Settings
from docgemma.llm.types import Message
from docgemma.tools.registry import build_registry

pytestmark = pytest.mark.real_model

PAGE = Path(__file__).parents[3] / "data" / "kb" / "pages" / "croup.md"


async def test_a_knowledge_question_gets_statements_quoted_from_the_page(default_llm) -> None:
    text = PAGE.read_text(encoding="utf-8").split("---", 2)[2]
    symptoms = text.split("## When to get help")[0].replace("## Symptoms", "").strip()
    page = Passage(1, "Croup — demonstration page", symptoms)
    question = "What are the symptoms of croup?"
    user = SYNTHESIZE_SOURCES_USER.render(
        brief_prefix="",
        user_query=question,
        clinical_context="",
        sources=f"[1] {page.title}\n{symptoms}",
    )
    messages = [
        Message(role="system", content=SYNTHESIZE_SYSTEM.render()),
        Message(role="user", content=user),
    ]
    settings = Settings(backend="llamacpp", model="qwen2.5-1.5b")
    deps = AgentDeps(settings=settings, llm=default_llm, registry=build_registry())
    written = await write_cited(deps, "synthesize", messages, [page], question, "")
    assert written.kept, [c.failure for c in written.dropped]
    for checked in written.kept:
        assert checked.cited == (1,)
        assert normalise(checked.statement.quote) in normalise(symptoms)
    said = " ".join(c.statement.text.lower() for c in written.kept)
    assert any(word in said for word in ("croup", "bark", "stridor", "hoarse"))

"""The triage tab's rendering and handler, without a browser."""

from __future__ import annotations

from docgemma.severity import Severity
from docgemma.triage.answer import SourceOut, TriageAnswer
from docgemma.triage.patient_text import FALLBACK_MESSAGE
from docgemma.ui.triage_tab import (
    TriageHandlers,
    TriageSession,
    TriageView,
    banner_html,
    demographics_from,
    sources_markdown,
)


def test_banner_shows_severity_action_and_escaped_flags():
    answer = TriageAnswer(
        answer="x", severity=Severity.A_AND_E, red_flags=["<script>alert(1)</script>"]
    )
    html = banner_html(answer)
    assert 'data-severity="A_AND_E"' in html and "A&amp;E" in html
    assert "Call 999 or go to A&amp;E now." in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert banner_html(TriageAnswer(answer="hello")) == ""


def test_sources_list_scores_and_strips_markup_from_page_fields():
    answer = TriageAnswer(
        answer="x",
        sources=[
            SourceOut(
                id="flu",
                title="Flu [x](javascript:alert(1))",
                score=0.6,
                kind="knowledge_base",
                source="demo",
            ),
            SourceOut(
                id="literature-1", title="A study", score=0.41, kind="literature", source="PubMedQA"
            ),
        ],
    )
    text = sources_markdown(answer)
    assert "1. Flu xjavascript:alert1 — condition page, similarity 0.60 (demo)" in text
    assert "2. A study — literature, similarity 0.41 (PubMedQA)" in text


def test_demographics_from_the_inputs():
    d = demographics_from("under 3 months", "Not given", True)
    assert d.age_band.value == "under 3 months" and d.sex is None and d.pregnant


async def test_a_failed_service_still_gives_red_flag_advice():
    async def broken():
        raise RuntimeError("model file missing")

    handlers = TriageHandlers(broken)
    view = TriageView(*(object() for _ in range(6)), follow=[object(), object(), object()])
    handlers.view = view
    session = TriageSession()
    updates = [
        u
        async for u in handlers.submit(
            "his face is drooping and his speech is slurred",
            "Not given",
            "Not given",
            False,
            session,
        )
    ]
    final = updates[-1]
    assert 'data-severity="A_AND_E"' in final[view.banner]
    reply = final[view.chat][-1]["content"]
    assert reply.startswith("Call 999 now: these can be signs of a stroke")
    assert FALLBACK_MESSAGE in reply
    assert [m["role"] for m in session.history] == ["user", "assistant"]

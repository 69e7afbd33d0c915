"""The triage tab's rendering and handler, without a browser."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

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

AA_NORMAL_TEXT = 4.5


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of a ``#rrggbb`` colour."""
    channels = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


class TextColours(HTMLParser):
    """Each piece of text with the colour and background its elements set inline.

    Only an element's own inline ``color`` counts: Gradio's ``.prose *`` rule sets every
    element's colour to the page's, so an inherited one would not reach the text.
    """

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[dict[str, str]] = []
        self.texts: list[tuple[str, str | None, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        style = dict(attrs).get("style") or ""
        rules = dict(r.split(":", 1) for r in style.split(";") if ":" in r)
        if tag != "br":
            self.stack.append({k.strip(): v.strip() for k, v in rules.items()})

    def handle_endtag(self, tag: str) -> None:
        if tag != "br":
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if data.strip() and self.stack:
            background = next(
                (s["background"] for s in reversed(self.stack) if "background" in s), None
            )
            self.texts.append((data.strip(), self.stack[-1].get("color"), background))


@pytest.mark.parametrize("severity", list(Severity))
def test_banner_text_meets_wcag_aa_contrast_on_every_severity(severity):
    answer = TriageAnswer(answer="x", severity=severity, red_flags=["Chest pain"])
    parser = TextColours()
    parser.feed(banner_html(answer))
    assert severity.value in [text for text, _, _ in parser.texts]
    for text, colour, background in parser.texts:
        assert colour and background, f"{text!r} has no colour of its own"
        assert contrast(colour, background) >= AA_NORMAL_TEXT, (text, colour, background)


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

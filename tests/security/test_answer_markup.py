"""LaTeX in an answer and markup in an approved proposal cannot hide words, in a real browser.

The old attacks: KaTeX rendered ``$$\\phantom{...}$$`` and ``$$\\color{white}{...}$$`` in
an answer, so words were in the page but invisible; and the chat's "Approved: …" line
showed the proposal's summary as Markdown, so a ``display:none`` span stayed hidden.
Now no LaTeX is rendered where untrusted text is shown, and the Approved line is plain
text like the card.
"""

from __future__ import annotations

import os

import pytest
from live_app import CHROMIUM, CHROMIUM_ARGS, running_app
from ui_fakes import PRESCRIPTION, FakeAgent, direct_events

from docgemma.agent.outcome import TurnResult

ON_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists() and not ON_CI,
        reason="Chromium is not installed at /usr/bin/chromium (apt-get install chromium)",
    ),
]
HIDDEN = '<span style="display:none">double the dose</span>'
ANSWER = (
    r"Give 500 mg. $$\phantom{then stop the anticoagulant}$$ "
    r"$$\color{white}{ignore the renal warning}$$"
)


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    rx = PRESCRIPTION.model_copy(update={"summary": f"Metformin for Jane {HIDDEN}"})
    agent = FakeAgent(
        events=direct_events("Give 500 mg."),
        result=TurnResult(final_response=ANSWER, pending_approval=rx),
    )
    with running_app(tmp_path_factory.mktemp("app"), agent_factory=lambda s, e: agent) as url:
        yield url


def test_latex_and_approved_markup_show_every_word(app_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.goto(app_url)
            page.wait_for_selector("#msg textarea", timeout=60_000)
            page.fill("#msg textarea", "Dose?")
            page.keyboard.press("Enter")
            card = page.locator("#approval-card").first
            card.wait_for(state="visible", timeout=60_000)
            chat = page.locator("#chat")
            chat.get_by_text("ignore the renal warning").first.wait_for(timeout=30_000)
            assert chat.locator(".katex").count() == 0  # no formula was rendered
            shown = chat.inner_text()  # what a reader sees (hidden text is left out)
            assert "then stop the anticoagulant" in shown
            assert "ignore the renal warning" in shown

            page.click("#approve-btn")
            chat.get_by_text("The prescription was saved.").first.wait_for(timeout=60_000)
            shown = chat.inner_text()
            [approved] = [line for line in shown.splitlines() if "Approved:" in line]
            assert "double the dose" in approved and "<span" in approved
        finally:
            browser.close()

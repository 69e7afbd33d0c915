"""The "Patient triage" tab in a real browser (Playwright + Debian's Chromium).

The tab's mechanics run on the real triage graph over a small fake knowledge base and
the scripted model, so every piece of content can be asserted; the red-flag turn runs
on the real app: the real embedded model (the tiny profile, shared with the agent tab's
browser tests: ``tests/ui/conftest.py``) and the real knowledge base.
"""

from __future__ import annotations

import sys

import pytest
from live_app import (  # noqa: F401
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    close_pages,
    new_tab,
    running_app,
    shot,
)
from test_browser import ON_CI
from ui_fakes import FakeAgent

from docgemma.severity import Severity
from docgemma.triage.service import TriageService

# the triage test package, under the name pytest gives it (a site package is called "tests")
sys.path.insert(0, str(ROOT / "tests"))
from triage.fakes import FakeKB, fake_literature, triage_backend  # noqa: E402

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists() and not ON_CI,
        reason="Chromium is not installed at /usr/bin/chromium (apt-get install chromium)",
    ),
]
TURN_MS = 60_000


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def scripted_triage(settings, agent):
    return TriageService.create(
        settings,
        triage_backend(
            reply="I'm sorry you are feeling poorly. This sounds like flu. Rest at home.",
            prediction={"condition": "flu", "severity": "Urgent Primary Care"},
        ),
        FakeKB(),
        literature=fake_literature,
    )


@pytest.fixture(scope="module")
def fake_url(tmp_path_factory):
    with running_app(
        tmp_path_factory.mktemp("triage"),
        agent_factory=lambda s, ehr: FakeAgent(events=[]),
        triage_factory=scripted_triage,
    ) as url:
        yield url


def open_triage(browser, url):
    page = new_tab(browser, height=1100)
    page.goto(url)
    page.get_by_role("tab", name="Patient triage").click()
    page.wait_for_selector("#triage-msg textarea", timeout=60_000)
    return page


def describe(page, text):
    page.fill("#triage-msg textarea", text)
    page.click("#triage-send")
    page.locator("#triage-banner .triage-banner").wait_for(timeout=TURN_MS)


def test_symptoms_give_banner_reasoning_sources_and_follow_ups(browser, fake_url):
    page = open_triage(browser, fake_url)
    notice = page.locator("#triage-notice").inner_text()
    assert "not medical advice" in notice and "999" in notice
    describe(page, "I have had a fever and a dry cough since Monday")
    banner = page.locator("#triage-banner .triage-banner")
    assert banner.get_attribute("data-severity") == "URGENT_PRIMARY_CARE"
    assert "Urgent Primary Care" in banner.inner_text()
    assert Severity.URGENT_PRIMARY_CARE.action in banner.inner_text()
    bot = page.locator("#triage-chat [data-testid='bot']").last.inner_text()
    assert "This sounds like flu" in bot and bot.strip().endswith("?")
    assert "Prediction" not in bot and "flu page" not in bot
    thinking = page.locator("#triage-thinking textarea")
    assert not thinking.is_visible()  # collapsed until opened
    page.locator("#triage-reasoning").get_by_text("Reasoning").click()
    thinking.wait_for(state="visible", timeout=5_000)
    assert "The symptoms match the flu page" in thinking.input_value()
    assert "Prediction: (flu, Urgent Primary Care)" in thinking.input_value()
    sources = page.locator("#triage-sources").inner_text()
    assert "Flu — condition page, similarity" in sources
    buttons = page.locator("button.triage-follow-up:visible")
    assert buttons.count() == 3
    assert buttons.first.inner_text() == "What should I tell the GP about flu?"
    shot(page, "20_triage")


def test_a_baby_under_three_months_changes_the_advice(browser, fake_url):
    page = open_triage(browser, fake_url)
    page.locator("#triage-age input").click()
    page.get_by_role("option", name="under 3 months").click()
    describe(page, "temperature of 38.5 since this morning")
    banner = page.locator("#triage-banner .triage-banner")
    assert banner.get_attribute("data-severity") == "A_AND_E"
    assert "A baby under 3 months with a high temperature" in banner.inner_text()
    # the page's own rules must not repaint the label in the body colour (contrast)
    label = banner.locator("strong").evaluate("e => getComputedStyle(e).color")
    assert label == "rgb(255, 255, 255)"
    bot = page.locator("#triage-chat [data-testid='bot']").last.inner_text()
    assert bot.startswith("Call 999 or go to A&E now")


def test_an_empty_message_gets_a_friendly_prompt(browser, fake_url):
    page = open_triage(browser, fake_url)
    page.click("#triage-send")
    page.locator("#triage-chat [data-testid='bot']").last.wait_for(timeout=TURN_MS)
    assert "Please tell me what symptoms you have" in page.locator("#triage-chat").inner_text()


@pytest.mark.real_model
def test_red_flag_turn_on_the_real_app(browser, real_url):
    """The red-flag rule decides, not the model: the session's app on the tiny profile."""
    page = open_triage(browser, real_url)
    page.fill("#triage-msg textarea", "Crushing chest pain and I'm short of breath")
    page.click("#triage-send")
    page.locator("#triage-banner .triage-banner").wait_for(timeout=600_000)
    banner = page.locator("#triage-banner .triage-banner")
    assert banner.get_attribute("data-severity") == "A_AND_E"
    assert "Chest pain with breathlessness" in banner.inner_text()
    bot = page.locator("#triage-chat [data-testid='bot']").last.inner_text()
    assert bot.startswith("Call 999 now")
    assert "Knowledge-base page" in page.locator("#triage-sources").inner_text() or (
        "DocGemma demonstration page" in page.locator("#triage-sources").inner_text()
    )
    shot(page, "21_triage_real")

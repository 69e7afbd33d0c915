"""Two questions a small model once answered with junk, in a real browser on the default profile
(Qwen2.5 1.5B, offline): each gets a correct, readable answer, never junk."""

from __future__ import annotations

import pytest
from live_app import CHROMIUM, close_pages, running_app  # noqa: F401
from test_browser import (  # noqa: F401
    ask,
    browser,
    last_bot_text,
    open_page,
    shot,
)

from docgemma.agent.answer.compose import NO_SOURCE, NOT_RETRIEVED_ANSWER
from docgemma.agent.answer.hygiene import defects
from docgemma.tools.registry import build_registry

pytestmark = [
    pytest.mark.browser,
    pytest.mark.real_model,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Chromium is not installed"),
]
TURN_MS = 900_000
"""A small model on 2 shared cores: a multi-call turn can take minutes under load."""


@pytest.fixture(scope="module")
def default_url(tmp_path_factory):
    with running_app(tmp_path_factory.mktemp("default")) as url:  # the default profile
        yield url


def assert_readable(answer: str) -> None:
    assert answer.strip(), "an answer is shown"
    assert not defects(answer, question=""), f"degenerate: {answer!r}"
    for marker in ("Clinician's question:", "Sources:\n[1]", "statements"):
        assert marker not in answer, f"prompt echo {marker!r}"
    for name in build_registry().labels():
        assert name not in answer, f"tool name {name!r}"
    assert "LoginPage" not in answer and "could not reach the language model" not in answer


def test_first_line_treatment_of_type_2_diabetes_is_metformin(browser, default_url):  # noqa: F811
    """Routed DIRECT, the answer rests on an offline passage that covers the question, or
    says plainly that none does and what was searched; never an answer from memory."""
    page = open_page(browser, default_url)
    ask(page, "What is the first-line treatment for type 2 diabetes?", timeout_ms=TURN_MS)
    answer = last_bot_text(page)
    shot(page, "09_default_t2d")
    assert "metformin" in answer.lower() or (answer.startswith(NO_SOURCE) and "Searched:" in answer)
    assert_readable(answer)


def test_dofetilide_offline_says_the_fda_label_is_unavailable(browser, default_url):  # noqa: F811
    page = open_page(browser, default_url)
    ask(page, "Check FDA warnings for dofetilide", timeout_ms=TURN_MS)
    answer = last_bot_text(page)
    shot(page, "10_default_dofetilide_offline")
    lowered = answer.lower()
    assert "could not be used" in lowered and "not connected" in lowered
    assert "no information was retrieved" in lowered
    # nothing was retrieved, so nothing is claimed: once the model wrote a fabricated
    # "FDA warning ... Stevens-Johnson syndrome" here
    assert NOT_RETRIEVED_ANSWER in answer and "FDA has issued" not in answer
    assert_readable(answer)


def test_a_patient_found_by_name_becomes_the_active_patient(browser, default_url):  # noqa: F811
    """The agent works on the patient it found; the page's Patient panel says so and shows
    her chart."""
    page = open_page(browser, default_url)
    ask(page, "Find patient Maria Garcia", timeout_ms=TURN_MS)
    banner = page.locator("#active-patient")
    banner.get_by_text("mgarcia-001").wait_for(timeout=30_000)
    assert "Maria Garcia" in banner.inner_text()
    chart = page.locator("#patient-chart")
    chart.get_by_text("Sulfamethoxazole", exact=False).wait_for(timeout=30_000)  # her allergy
    assert_readable(last_bot_text(page))

"""SECURITY.md item 7: an edited patient id is shown before anything is written to them.

In the browser: the card proposes metformin for John Smith; the clinician edits the
patient id and presses Approve. Nothing is written; the card now names the new
patient (name and birth date from the record) and a second Approve is needed. An id
that is not in the record is refused outright.
"""

from __future__ import annotations

import pytest
from conftest import METFORMIN, after_write, fhir_search, proposal
from live_app import CHROMIUM, chromium_tab, settle

from docgemma.llm.scripted import ScriptedBackend

pytestmark = pytest.mark.browser
OTHER = "lchen-002"


@pytest.fixture
def page(live):
    if not CHROMIUM.exists():
        pytest.fail("Chromium is missing at /usr/bin/chromium; make test installs it")
    llm = ScriptedBackend([*proposal(METFORMIN), *after_write()])
    with live(llm) as url, chromium_tab(url) as tab:
        tab.app_url = url
        yield tab


def orders(url: str, patient: str) -> list[dict]:
    return fhir_search(url, "MedicationRequest", patient=patient)


def test_a_changed_patient_is_shown_and_needs_a_second_approve(page) -> None:
    url = page.app_url
    before = {p: orders(url, p) for p in ("abc-123", OTHER)}
    page.fill("#msg textarea", "Prescribe metformin 500 mg twice daily for abc-123")
    page.keyboard.press("Enter")
    card = page.locator("#approval-card").first
    card.wait_for(state="visible", timeout=120_000)
    assert "John Smith, born 1958-04-12 (abc-123)" in card.inner_text()

    page.click("#edit-btn")
    page.get_by_label("Patient id").fill("nobody-999")
    page.click("#approve-btn")
    page.get_by_text("There is no patient with id nobody-999").wait_for(timeout=60_000)
    settle(page)
    assert "nobody-999" in card.inner_text() and "John Smith" not in card.inner_text()
    page.get_by_label("Patient id").fill(OTHER)
    page.click("#approve-btn")
    page.get_by_text("The patient is now Linda Chen, born 1961-03-08").wait_for(timeout=60_000)
    page.get_by_text(f"Linda Chen, born 1961-03-08 ({OTHER})").first.wait_for(timeout=30_000)
    assert card.is_visible() and "John Smith" not in card.inner_text()
    assert {p: orders(url, p) for p in before} == before  # nothing written yet

    settle(page)
    page.click("#approve-btn")
    page.get_by_text("Approved with edits:").first.wait_for(timeout=60_000)
    card.wait_for(state="hidden", timeout=60_000)
    assert orders(url, "abc-123") == before["abc-123"]
    [order] = [r for r in orders(url, OTHER) if r not in before[OTHER]]
    assert order["subject"]["reference"] == f"Patient/{OTHER}"
    assert "metformin" in str(order["medicationCodeableConcept"]).lower()

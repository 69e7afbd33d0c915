"""The approval card's editor in a real browser, on the real agent, EHR and FHIR server.

The model is scripted (the card is what is tested, not the answer): it proposes an
allergy, so the card must offer exactly the allergy tool's arguments — not the
prescription's — and an edit must reach the record only once Approve is pressed.
"""

from __future__ import annotations

import httpx
import pytest
from live_app import CHROMIUM, chromium_tab, running_app, settle, shot

from docgemma.agent import factory
from docgemma.llm.scripted import ScriptedBackend

pytestmark = pytest.mark.browser
PATIENT = "abc-123"
ALLERGY = {
    "patient_id": PATIENT,
    "substance": "penicillin",
    "reaction": "hives",
    "severity": "mild",
}
SCRIPT = [
    {"intent": "TOOL_NEEDED", "task_summary": "record an allergy", "suggested_tool": None},
    {"tool_name": "add_allergy"},
    ALLERGY,
    {"quality": "success_rich", "brief_summary": "allergy recorded"},
]


@pytest.fixture
def page(tmp_path, monkeypatch):
    if not CHROMIUM.exists():
        pytest.fail("Chromium is missing at /usr/bin/chromium; make test installs it")
    monkeypatch.setattr(factory, "create_backend", lambda _settings: ScriptedBackend(SCRIPT))
    with (
        running_app(
            tmp_path / "var",
            agent_factory=factory.build_agent,
            backend="scripted",
            literature_index_size=10,
        ) as url,
        chromium_tab(url) as tab,
    ):
        tab.app_url = url
        yield tab


def allergies(url: str) -> list[dict]:
    reply = httpx.get(
        f"{url}/fhir/AllergyIntolerance", params={"patient": PATIENT, "_count": "200"}, timeout=30
    )
    reply.raise_for_status()
    return [e["resource"] for e in reply.json().get("entry", [])]


def test_the_card_offers_the_proposals_fields_and_an_edit_is_written_only_on_approve(page):
    url = page.app_url
    before = allergies(url)
    page.fill("#msg textarea", f"Add a penicillin allergy for {PATIENT}: hives, mild")
    page.keyboard.press("Enter")
    card = page.locator("#approval-card").first
    card.wait_for(state="visible", timeout=120_000)
    settle(page)
    page.click("#edit-btn")
    boxes = page.locator("#approval-card .edit-field")
    boxes.first.wait_for(state="visible", timeout=30_000)
    labels = [
        boxes.nth(i).locator("[data-testid=block-info]").inner_text() for i in range(boxes.count())
    ]
    assert labels == ["Patient id", "Substance", "Reaction", "Severity"]
    assert page.get_by_label("Substance").input_value() == "penicillin"
    assert page.get_by_label("Severity").input_value() == "mild"
    assert page.get_by_label("Dosage").count() == 0  # not the prescription's fields

    page.get_by_label("Severity").fill("severe")
    page.get_by_label("Substance").fill("")  # a bad edit: the substance is required
    page.click("#approve-btn")
    error = page.locator("#approval-error")
    error.get_by_text("substance: this field is required").wait_for(timeout=60_000)
    settle(page)
    shot(page, "09_approval_card_bad_edit")
    assert card.is_visible() and page.get_by_label("Severity").input_value() == "severe"
    assert not page.locator("#approval-key").is_visible()  # the card's key is never shown
    assert allergies(url) == before  # nothing written, and the other edit is kept

    page.get_by_label("Substance").fill("amoxicillin")
    shot(page, "10_approval_card_edited")
    assert allergies(url) == before  # typing is not approving
    page.click("#approve-btn")
    page.get_by_text("Approved with edits:").first.wait_for(timeout=60_000)
    card.wait_for(state="hidden", timeout=60_000)
    [written] = [a for a in allergies(url) if a not in before]
    text = str(written).lower()
    assert "amoxicillin" in text and "penicillin" not in text
    assert written["reaction"][0]["severity"] == "severe"

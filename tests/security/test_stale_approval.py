"""SECURITY.md item 8: an approval is tied to the proposal the clinician was shown.

The attack: the card shows metformin, a newer turn proposes warfarin, and the old
card's Approve arrives (a second tab, a slow network, a queued click). It must be
refused with a clear message, nothing written, and the newer proposal left waiting.
"""

from __future__ import annotations

from conftest import METFORMIN, PATIENT, Page, after_write, fhir_search, proposal, texts

from docgemma.llm.scripted import ScriptedBackend
from docgemma.ui.handlers import STALE

WARFARIN = {**METFORMIN, "medication_name": "warfarin", "dosage": "5 mg", "frequency": "daily"}


def test_approving_a_replaced_proposal_is_refused(live) -> None:
    llm = ScriptedBackend([*proposal(METFORMIN), *proposal(WARFARIN), *after_write()])
    with live(llm) as url:
        page = Page(url)
        page.say("Prescribe metformin 500 mg twice daily for abc-123")
        shown = page.card()
        assert "metformin" in shown.markdown
        page.say("Prescribe warfarin 5 mg daily for abc-123")  # the card is not redrawn
        before = fhir_search(url, "MedicationRequest", patient=PATIENT)

        history, message = page.approve(shown.key, shown.fields)
        assert message == f"⚠️ {STALE}"
        assert "Approved" not in texts(history[-1:])
        assert fhir_search(url, "MedicationRequest", patient=PATIENT) == before
        _, message = page.reject(shown.key, "stale")
        assert message == f"⚠️ {STALE}"

        current = page.card()
        assert "warfarin" in current.markdown and current.key != shown.key
        assert "newer proposal" in current.error  # the card says why nothing happened
        history, _ = page.approve(current.key, current.fields)
        assert "Prescription saved to the record of" in texts(history)
        [order] = [
            r for r in fhir_search(url, "MedicationRequest", patient=PATIENT) if r not in before
        ]
        assert "warfarin" in str(order["medicationCodeableConcept"]).lower()


def test_a_question_after_a_proposal_takes_its_card_away(live) -> None:
    """The new message discards the proposal nobody decided (the agent says so); the page
    must not go on offering its Approve."""
    direct = {"intent": "DIRECT", "task_summary": "define", "suggested_tool": None}
    llm = ScriptedBackend([*proposal(METFORMIN), direct, {"statements": []}])
    with live(llm) as url:
        page = Page(url)
        page.say("Prescribe metformin 500 mg twice daily for abc-123")
        assert "metformin" in page.card().markdown
        history = page.say("What is hypertension?")
        assert "was not approved and was discarded" in texts(history[-1:])
        assert page.card().markdown == ""

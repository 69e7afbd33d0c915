"""SECURITY.md item 1: nobody takes over a clinician's conversation or pending approval.

The old attack: read the thread id (session hash + suffix) from a Provenance over
``GET /fhir/Provenance``, present that session hash to Gradio, read the conversation
and approve the pending prescription with a changed dose. It must find nothing: no
Provenance carries the thread id or the session hash, and a signed-in user presenting
another user's session hash is refused.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import (
    METFORMIN,
    PASSWORDS,
    PATIENT,
    Page,
    after_write,
    fhir_search,
    proposal,
    texts,
)
from gradio_http import EventFailed

from docgemma.ehr.codes import SESSION_SYSTEM
from docgemma.llm.scripted import ScriptedBackend
from docgemma.ui.session import FOREIGN

WARFARIN = {**METFORMIN, "medication_name": "warfarin", "dosage": "5 mg", "frequency": "daily"}


def candidate_hashes(provenances: list[dict]) -> set[str]:
    """Every session hash an attacker could derive from what the Provenances show."""
    found = set()
    for record in provenances:
        for entity in record.get("entity", []):
            value = entity["what"]["identifier"]["value"]
            found |= {value, value.rsplit("-", 1)[0]}
    return found


def test_a_session_read_from_provenance_reaches_no_conversation(live) -> None:
    llm = ScriptedBackend([*proposal(METFORMIN), *after_write(), *proposal(WARFARIN)])
    with live(llm) as url:
        clinician = Page(url)
        clinician.say("Prescribe metformin 500 mg twice daily for abc-123")
        card = clinician.card()
        history, _ = clinician.approve(card.key, card.fields)
        assert "Prescription saved to the record of" in texts(history)
        clinician.say("Also prescribe warfarin 5 mg daily for abc-123")
        pending = clinician.card()
        assert "warfarin" in pending.markdown

        provenances = fhir_search(url, "Provenance", patient=PATIENT)
        assert len(provenances) == 1
        shown = json.dumps(provenances)
        assert clinician.session_hash not in shown  # nothing a client could present
        [session] = [
            e["what"]["identifier"]["value"]
            for e in provenances[0]["entity"]
            if e["what"]["identifier"]["system"] == SESSION_SYSTEM
        ]
        assert re.fullmatch(r"[0-9a-f]{32}", session)  # a one-way reference, not the thread

        before = {r["id"] for r in fhir_search(url, "MedicationRequest", patient=PATIENT)}
        for forged in candidate_hashes(provenances):
            attacker = Page(url, session_hash=forged)
            stolen = attacker.card()
            assert stolen.markdown == "" and stolen.key == ""
            history, _ = attacker.approve(pending.key, [PATIENT, "warfarin", "50 mg", "daily"])
            assert "warfarin" not in texts(history) and "metformin" not in texts(history)

        after = fhir_search(url, "MedicationRequest", patient=PATIENT)
        assert {r["id"] for r in after} == before  # nothing written
        assert clinician.card().key == pending.key  # the clinician's proposal still waits


def test_another_user_presenting_the_session_hash_is_refused(live, user_hashes) -> None:
    llm = ScriptedBackend([*proposal(METFORMIN), *after_write()])
    with live(llm, auth_users=user_hashes) as url:
        credentials = ("dr.lee", PASSWORDS["dr.lee"])
        lee = Page(url, auth=credentials)
        lee.say("Prescribe metformin 500 mg twice daily for abc-123")
        card = lee.card()
        before = fhir_search(url, "MedicationRequest", auth=credentials, patient=PATIENT)

        # Worst case: the hash itself leaked. Another signed-in user presents it.
        mallory = Page(url, auth=("mallory", PASSWORDS["mallory"]), session_hash=lee.session_hash)
        assert mallory.card().markdown == ""  # the card is not shown to her
        with pytest.raises(EventFailed, match="another signed-in user"):
            mallory.render_editor(card.key)  # nor are its edit boxes
        # the Approve event the owner's editor added to the shared session, called by her
        edits = [PATIENT, "metformin", "5000 mg", "hourly"]
        history, message = mallory.approve(card.key, edits, editor=lee.editor)
        assert message == f"⚠️ {FOREIGN}" and history == []
        _, message = mallory.reject(card.key, "mine now")
        assert message == f"⚠️ {FOREIGN}"
        assert mallory.say("What did we discuss?") == []  # no conversation read
        cleared = mallory.client.predict(api_name="/clear_patient")
        assert cleared[1] == f"⚠️ {FOREIGN}"  # nor is the active patient changed
        picked = mallory.client.predict(None, api_name="/pick_image")
        assert picked == f"⚠️ {FOREIGN}"  # nor an attached image dropped from his next turn
        orders = fhir_search(url, "MedicationRequest", auth=credentials, patient=PATIENT)
        assert orders == before  # nothing written

        history, _ = lee.approve(card.key, card.fields)  # the owner still can
        assert "Prescription saved to the record of" in texts(history)
        orders = fhir_search(url, "MedicationRequest", auth=credentials, patient=PATIENT)
        [order] = [r for r in orders if r not in before]
        assert order["dosageInstruction"][0]["text"] == "500 mg twice daily"
        assert order["requester"]["display"] == "dr.lee"  # the signed-in user approved

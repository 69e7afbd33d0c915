"""The approver name typed in open demo mode is at most 80 characters of plain text.

The old attack: a 200,092-character name full of markup was stored whole in the
prescription's ``requester.display`` and in the Provenance. Now the name loses its HTML
tags and markup characters and is cut at 80 characters, the HTTP API's limit.
"""

from __future__ import annotations

import json

from conftest import METFORMIN, PATIENT, Page, after_write, fhir_search, proposal, texts

from docgemma.llm.scripted import ScriptedBackend

TYPED = "<b>Dr</b> <img src=x>**Evil** [link](http://x) " + "x" * 200_000


def test_a_huge_marked_up_name_is_stored_short_and_plain(live) -> None:
    llm = ScriptedBackend([*proposal(METFORMIN), *after_write()])
    with live(llm) as url:
        page = Page(url)
        page.say("Prescribe metformin 500 mg twice daily for abc-123")
        card = page.card()
        before = {r["id"] for r in fhir_search(url, "MedicationRequest", patient=PATIENT)}
        history, _ = page.approve(card.key, card.fields, name=TYPED)
        assert "Prescription saved to the record of" in texts(history)
        after = fhir_search(url, "MedicationRequest", patient=PATIENT)
        [order] = [r for r in after if r["id"] not in before]
        provenances = fhir_search(url, "Provenance", patient=PATIENT)
    display = order["requester"]["display"]
    assert display.startswith("Dr Evil linkhttp") and len(display) == 80
    assert "x" * 81 not in json.dumps(provenances) and "<" not in json.dumps(provenances)

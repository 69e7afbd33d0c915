"""The HTTP API records the authenticated caller as the approver, never a typed name.

The old attack: ``POST /v1/approvals/{id}`` with ``approved_by: "dr.lee"`` made dr.lee
the prescription's requester and the Provenance's agent, whoever held the key (in
``users`` mode too). Now the approver is the API key's tenant; the typed text is kept
only as a labelled note in the conversation's history.
"""

from __future__ import annotations

import asyncio
import json

from conftest import METFORMIN, PATIENT, after_write, fhir_search, proposal

from docgemma.api.auth import hash_key
from docgemma.api.client import DocGemmaClient
from docgemma.llm.scripted import ScriptedBackend

KEY = "clinic-a-key-" + "k" * 20


async def _approve_as_someone_else(url: str) -> tuple[dict, str]:
    async with DocGemmaClient(f"{url}/api", KEY) as api:
        turn = await api.chat(f"Prescribe metformin 500 mg twice daily for {PATIENT}")
        assert turn.approval is not None
        await api.decide(turn.approval.approval_id, "approve", approved_by="dr.lee")
        history = await api.history(turn.session_id)
    return history, turn.approval.summary


def test_the_api_approver_is_the_callers_key_not_the_typed_name(live) -> None:
    llm = ScriptedBackend([*proposal(METFORMIN), *after_write()])
    with live(llm, api_keys={hash_key(KEY): "clinic-a"}) as url:
        before = {r["id"] for r in fhir_search(url, "MedicationRequest", patient=PATIENT)}
        history, summary = asyncio.run(_approve_as_someone_else(url))
        after = fhir_search(url, "MedicationRequest", patient=PATIENT)
        [order] = [r for r in after if r["id"] not in before]
        provenances = fhir_search(url, "Provenance", patient=PATIENT)
    assert order["requester"]["display"] == "clinic-a (API key)"
    shown = json.dumps([order, provenances])
    assert "dr.lee" not in shown
    assert "clinic-a (API key)" in json.dumps(provenances)
    said = [m["content"] for m in history["messages"] if m["role"] == "user"]
    assert said[-1] == f"Approved: {summary} (caller's note, not verified: dr.lee)"

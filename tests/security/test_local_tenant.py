"""The page is the API's ``local`` tenant — readable there, never approvable there.

Against the live app: a turn on the page becomes a session of the tenant ``local``
(history and export through ``/api`` with a key mapped to it); another tenant does not
see it; the page's pending prescription is not an API approval, so no second channel
can approve what the clinician on the page was shown.
"""

from __future__ import annotations

from pathlib import Path

import httpx
from conftest import METFORMIN, Page, fhir_search, proposal

from docgemma.api.auth import hash_key
from docgemma.llm.scripted import ScriptedBackend

KEYS = {"local-key": "local", "other-key": "clinic-b"}


def api(url: str, key: str, path: str) -> httpx.Response:
    return httpx.get(f"{url}/api/v1{path}", headers={"Authorization": f"Bearer {key}"})


def test_page_turns_are_local_sessions_readable_but_not_approvable(live, tmp_path: Path) -> None:
    keys = {hash_key(k): tenant for k, tenant in KEYS.items()}
    with live(ScriptedBackend(proposal(METFORMIN)), api_keys=keys) as url:
        said = "Prescribe metformin 500 mg twice daily for abc-123"
        before = len(fhir_search(url, "MedicationRequest", patient="abc-123"))
        Page(url).say(said)
        assert Page(url).card().markdown == ""  # another browser session sees no proposal
        sessions = api(url, "local-key", "/sessions").json()
        assert [s["title"] for s in sessions] == [said]
        session = sessions[0]["id"]
        history = api(url, "local-key", f"/sessions/{session}/history").json()
        assert [m["role"] for m in history["messages"]] == ["user", "assistant"]
        assert history["messages"][0]["content"] == said
        assert history["pending_approval"] is None  # decided on the page only
        exported = api(url, "local-key", f"/sessions/{session}/export").text
        assert said in exported
        assert api(url, "other-key", "/sessions").json() == []
        assert api(url, "other-key", f"/sessions/{session}/history").status_code == 404
        assert len(fhir_search(url, "MedicationRequest", patient="abc-123")) == before

"""SECURITY.md item 2: who may read and approve.

With users configured, nothing of the page, its API or ``/fhir`` answers without a
sign-in, passwords are checked against salted hashes, and the approver recorded is
the signed-in user. Behind a sign-in proxy the named header is required. Open demo
mode records the name typed with each decision, refuses an external FHIR server and
answers ``/fhir`` on loopback only.
"""

from __future__ import annotations

import httpx
import pytest
from conftest import METFORMIN, PASSWORDS, PATIENT, Page, after_write, fhir_search, proposal, texts

from docgemma.auth import AccessConfigError
from docgemma.config import Settings
from docgemma.llm.scripted import ScriptedBackend

LEE = ("dr.lee", PASSWORDS["dr.lee"])


def test_signed_in_users_only_and_the_approver_is_the_user(live, user_hashes) -> None:
    llm = ScriptedBackend([*proposal(METFORMIN), *after_write()])
    with live(llm, auth_users=user_hashes) as url:
        with httpx.Client(base_url=url, timeout=30) as anonymous:
            assert anonymous.get("/config").status_code == 401
            join = anonymous.post(
                "/gradio_api/queue/join",
                json={"data": [], "fn_index": 0, "session_hash": "x", "event_data": None},
            )
            assert join.status_code == 401
            fhir = anonymous.get(f"/fhir/Patient/{PATIENT}")
            assert fhir.status_code == 401
            assert "Sign in" in fhir.json()["issue"][0]["diagnostics"]
            assert "John" not in fhir.text  # nothing of the record leaks
            wrong = anonymous.post("/login", data={"username": "dr.lee", "password": "guess"})
            assert wrong.status_code == 400
        assert (
            httpx.get(f"{url}/fhir/Patient/{PATIENT}", auth=("dr.lee", "guess")).status_code == 401
        )
        assert httpx.get(f"{url}/fhir/Patient/{PATIENT}", auth=LEE).json()["id"] == PATIENT

        lee = Page(url, auth=LEE)
        lee.say("Prescribe metformin 500 mg twice daily for abc-123")
        card = lee.card()
        # a name sent with the decision, as the demo's name box would, counts for nothing
        history, _ = lee.approve(card.key, card.fields, name="Dr Forged")
        assert "Prescription saved to the record of" in texts(history)
        [provenance] = fhir_search(url, "Provenance", auth=LEE, patient=PATIENT)
        verifier = [a["who"]["display"] for a in provenance["agent"] if "verifier" in str(a)]
        assert verifier == ["dr.lee"]


def test_behind_a_sign_in_proxy_the_header_is_required(live) -> None:
    with live(ScriptedBackend(), auth_mode="header", auth_header="X-Forwarded-User") as url:
        assert httpx.get(f"{url}/config").status_code == 401
        assert httpx.get(f"{url}/fhir/Patient/{PATIENT}").status_code == 401
        signed = {"X-Forwarded-User": "dr.proxy"}
        assert httpx.get(f"{url}/config", headers=signed).status_code == 200
        reply = httpx.get(f"{url}/fhir/Patient/{PATIENT}", headers=signed)
        assert reply.json()["id"] == PATIENT


def test_open_demo_serves_the_record_on_loopback_only(live) -> None:
    with live(ScriptedBackend()) as url:
        page = httpx.get(f"{url}/config").text
        assert "Open demo mode" in page and "not verified" in page  # labelled as such
        assert httpx.get(f"{url}/fhir/Patient/{PATIENT}").json()["id"] == PATIENT
        # A remote client, as a reverse proxy on this host reports it to uvicorn.
        remote = httpx.get(
            f"{url}/fhir/Patient/{PATIENT}", headers={"X-Forwarded-For": "203.0.113.9"}
        )
        assert remote.status_code == 401
        assert "only on this machine" in remote.json()["issue"][0]["diagnostics"]
        assert "John" not in remote.text


def test_open_demo_records_the_name_sent_with_each_decision(live) -> None:
    """The name box goes with the decision: no earlier event has to have stored it."""
    llm = ScriptedBackend([*proposal(METFORMIN), *after_write(), *proposal(METFORMIN)])
    with live(llm) as url:
        page = Page(url)
        page.say("Prescribe metformin 500 mg twice daily for abc-123")
        card = page.card()
        page.approve(card.key, card.fields, name="  Dr Ada Typed ")
        page.say("Prescribe metformin 500 mg twice daily for abc-123")
        _, message = page.reject(page.card().key, "duplicate", name="")
        assert not message
        [provenance] = fhir_search(url, "Provenance", patient=PATIENT)
        verifier = [a["who"]["display"] for a in provenance["agent"] if "verifier" in str(a)]
        assert verifier == ["Dr Ada Typed"]


@pytest.mark.parametrize("mode", ["auto", "open"])
def test_open_mode_refuses_an_external_fhir_server(tmp_path, mode) -> None:
    from live_app import load_app_module

    settings = Settings(
        data_dir=tmp_path, fhir_url="https://ehr.example.org/fhir", auth_mode=mode, offline=True
    )
    with pytest.raises(AccessConfigError, match="only allowed with the embedded synthetic EHR"):
        load_app_module().create_app(settings, agent_factory=lambda s, e: None)

"""With a write token, the embedded FHIR server refuses anonymous writes; reads stay open."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fhir_server import embedded_fhir

from docgemma.ehr.client import EHRClient, EHRError
from docgemma.ehr.server import serve_in_thread

TOKEN = "s3cret-token"
ALLERGY = {
    "resourceType": "AllergyIntolerance",
    "patient": {"reference": "Patient/abc-123"},
    "code": {"text": "latex"},
}


guarded_url = embedded_fhir("module", write_token=TOKEN)


def writes(http: httpx.Client) -> list[httpx.Response]:
    bundle = {
        "resourceType": "Bundle",
        "type": "transaction",
        "entry": [
            {"resource": ALLERGY, "request": {"method": "POST", "url": "AllergyIntolerance"}}
        ],
    }
    return [
        http.post("/AllergyIntolerance", json=ALLERGY),
        http.put("/AllergyIntolerance/manual-1", json={**ALLERGY, "id": "manual-1"}),
        http.post("/", json=bundle),
        http.patch("/AllergyIntolerance/manual-1", json=[]),
        http.delete("/AllergyIntolerance/manual-1"),
    ]


def latex_allergies(http: httpx.Client) -> int:
    found = http.get("/AllergyIntolerance", params={"patient": "abc-123", "_count": 200})
    return sum(
        1 for e in found.json().get("entry", []) if e["resource"]["code"] == {"text": "latex"}
    )


@pytest.mark.parametrize("authorization", [None, "Bearer wrong", f"Basic {TOKEN}", TOKEN])
def test_writes_without_the_token_get_401_and_change_nothing(guarded_url, authorization):
    headers = {"Authorization": authorization} if authorization else {}
    with httpx.Client(base_url=guarded_url, headers=headers, timeout=30) as http:
        before = latex_allergies(http)
        for reply in writes(http):
            assert reply.status_code == 401, (reply.request.method, reply.text)
            outcome = reply.json()
            assert outcome["resourceType"] == "OperationOutcome"
            assert outcome["issue"][0]["code"] == "login"
            assert reply.headers["WWW-Authenticate"].startswith("Bearer")
        assert latex_allergies(http) == before


def test_reads_stay_open(guarded_url):
    with httpx.Client(base_url=guarded_url, timeout=30) as http:
        assert http.get("/Patient/abc-123").status_code == 200
        assert http.get("/Patient", params={"name": "Smith"}).json()["total"] >= 1
        assert http.get("/metadata").status_code == 200


def test_writes_with_the_token_are_accepted(guarded_url):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=guarded_url, headers=auth, timeout=30) as http:
        before = latex_allergies(http)
        replies = writes(http)[:3]
        assert [r.status_code for r in replies] == [201, 201, 200]
        assert latex_allergies(http) == before + 3


async def test_the_ehr_client_sends_the_configured_token(guarded_url, settings):
    with_token = EHRClient.from_settings(
        settings.model_copy(update={"fhir_token": TOKEN}), guarded_url
    )
    reference, created = await with_token.create_once(ALLERGY, "write-token-test")
    assert created and reference.startswith("AllergyIntolerance/")
    anonymous = EHRClient.from_settings(settings, guarded_url)
    with pytest.raises(EHRError) as refused:
        await anonymous.create_once(ALLERGY, "write-token-test-2")
    assert refused.value.kind == "auth" and refused.value.status == 401
    assert (await anonymous.read("Patient", "abc-123"))["id"] == "abc-123"


def test_no_token_means_open_writes_on_loopback(tmp_path: Path):
    """The tests' and CLI's default server (loopback only) still takes plain writes."""
    with serve_in_thread(tmp_path / "fhir.db", bundles_dir=None) as url:
        assert httpx.post(f"{url}/AllergyIntolerance", json=ALLERGY).status_code == 201


async def test_the_cli_runtime_guards_its_server_and_holds_the_token(settings):
    from docgemma.ehr.runtime import ehr_client

    with ehr_client(settings) as client:
        assert httpx.post(f"{client.base_url}/AllergyIntolerance", json=ALLERGY).status_code == 401
        _, created = await client.create_once(ALLERGY, "runtime-token-test")
        assert created

"""Behaviour specific to the embedded server: strict parameters, seeding, restarts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

from docgemma.config import Settings
from docgemma.ehr.limits import ServerLimits
from docgemma.ehr.loader import DEFAULT_BUNDLES, load_bundles
from docgemma.ehr.server import serve_in_thread
from docgemma.ehr.store import ResourceStore

LIMITS = ServerLimits.from_settings(Settings())
pytestmark = pytest.mark.skipif(
    bool(os.environ.get("DOCGEMMA_FHIR_URL")),
    reason="embedded-server behaviour; an external server is configured",
)


def test_seeding_is_idempotent_across_restarts(tmp_path: Path) -> None:
    db = tmp_path / "fhir.db"
    with serve_in_thread(db) as url:
        first = httpx.get(f"{url}/Patient", params={"_count": "0"}).json()["total"]
    assert first == len(list(DEFAULT_BUNDLES.glob("*.json")))
    store = ResourceStore(db)
    resources_before = store.count()
    with serve_in_thread(db) as url:
        again = httpx.get(f"{url}/Patient", params={"_count": "0"}).json()["total"]
    assert again == first
    assert store.count() == resources_before
    assert load_bundles(store, DEFAULT_BUNDLES, LIMITS) == 0


def test_changed_bundle_is_reapplied_without_duplicates(tmp_path: Path) -> None:
    bundles = tmp_path / "bundles"
    bundles.mkdir()
    source = json.loads((DEFAULT_BUNDLES / "abc-123.json").read_text())
    (bundles / "one.json").write_text(json.dumps(source))
    store = ResourceStore(tmp_path / "fhir.db")
    assert load_bundles(store, bundles, LIMITS) == 1
    count = store.count()
    source["entry"][0]["resource"]["active"] = False
    (bundles / "one.json").write_text(json.dumps(source))
    assert load_bundles(store, bundles, LIMITS) == 1
    assert store.count() == count
    assert store.read("Patient", "abc-123")["active"] is False
    assert store.read("Patient", "abc-123")["meta"]["versionId"] == "2"


def test_strict_errors(fhir_url: str) -> None:
    with httpx.Client(base_url=fhir_url) as http:
        unknown_param = http.get("/Patient", params={"shoe-size": "42"})
        assert unknown_param.status_code == 400
        assert "shoe-size" in unknown_param.json()["issue"][0]["diagnostics"]
        assert http.get("/Spaceship/1").status_code == 404
        assert http.post("/", json={"resourceType": "Bundle", "type": "batch"}).status_code == 400
        ambiguous = http.post(
            "/Patient", json={"resourceType": "Patient"}, headers={"If-None-Exist": "family=Wilson"}
        )
        assert ambiguous.status_code == 412


def test_update_creates_then_versions(fhir_url: str) -> None:
    body = {"resourceType": "Patient", "id": "put-test-1", "name": [{"family": "Put"}]}
    with httpx.Client(base_url=fhir_url) as http:
        created = http.put("/Patient/put-test-1", json=body)
        updated = http.put("/Patient/put-test-1", json={**body, "gender": "female"})
        mismatch = http.put("/Patient/put-test-2", json=body)
    assert created.status_code == 201 and updated.status_code == 200
    assert updated.json()["meta"]["versionId"] == "2"
    assert mismatch.status_code == 400


def test_capability_statement(fhir_url: str) -> None:
    statement = httpx.get(f"{fhir_url}/metadata").json()
    assert statement["resourceType"] == "CapabilityStatement"
    types = {r["type"] for r in statement["rest"][0]["resource"]}
    assert {"Patient", "Observation", "MedicationRequest", "Provenance"} <= types


async def test_works_mounted_under_a_prefix(tmp_path: Path) -> None:
    from fastapi import FastAPI

    from docgemma.ehr.client import EHRClient
    from docgemma.ehr.server import create_app, serve_app

    parent = FastAPI()
    parent.mount("/fhir", create_app(tmp_path / "fhir.db"))
    with serve_app(parent) as url:
        client = EHRClient(f"{url}/fhir")
        assert (await client.chart("abc-123")).name == "John Smith"
        bundle = httpx.get(f"{url}/fhir/Patient", params={"_id": "abc-123"}).json()
    assert bundle["entry"][0]["fullUrl"] == f"{url}/fhir/Patient/abc-123"

"""SECURITY.md item 9: the embedded FHIR server answers bad requests with a 4xx OperationOutcome.

Each input below gave a plain-text 500 (or, for ``subject=%``, every resource) before.
The server runs on 127.0.0.1 over real HTTP; after the attacks nothing was written.
"""

from __future__ import annotations

import json

import httpx
import pytest
from fhir_server import embedded_fhir

WRITER = {"Authorization": "Bearer t0ken"}


fhir_url = embedded_fhir("module", write_token="t0ken")


@pytest.fixture(scope="module")
def fhir(fhir_url):
    with httpx.Client(base_url=fhir_url, timeout=60) as http:
        yield http


def outcome(response: httpx.Response, status: int) -> str:
    """The diagnostics of a FHIR OperationOutcome with ``status``; fails on anything else."""
    assert response.status_code == status, (response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("application/fhir+json")
    body = response.json()
    assert body["resourceType"] == "OperationOutcome"
    return body["issue"][0]["diagnostics"]


def total(http: httpx.Client, rtype: str) -> int:
    return http.get(f"/{rtype}", params={"_count": "0"}).json()["total"]


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"_count": "٣"}, "non-negative integer"),  # Arabic-Indic three: isdigit() said yes
        ({"_count": "²"}, "non-negative integer"),
        ({"_offset": "9" * 20}, "at most 9 digits"),
        ({"_count": "9" * 20}, "at most 9 digits"),
        ({"name": ",".join(f"n{i}" for i in range(1500))}, "at most 100 values"),
    ],
)
def test_bad_search_input_is_a_400_outcome(fhir, params, words):
    assert words in outcome(fhir.get("/Patient", params=params), 400)


def test_count_is_capped(fhir):
    page = fhir.get("/Observation", params={"_count": "100000"}).json()
    assert len(page["entry"]) <= 500 and page["total"] > 0


def test_percent_in_a_reference_matches_only_itself(fhir):
    assert total(fhir, "Condition") > 0
    for wildcard in ("%", "_%", "%25"):
        found = fhir.get("/Condition", params={"subject": wildcard}).json()
        assert found["total"] == 0, wildcard
    assert fhir.get("/Condition", params={"subject": "abc-123"}).json()["total"] > 0


@pytest.mark.parametrize("path", ["/HumanName", "/HumanName/x", "/Element", "/DomainResource"])
def test_data_types_are_not_resource_endpoints(fhir, path):
    assert "Unknown resource type" in outcome(fhir.get(path), 404)


def test_a_data_type_cannot_be_created(fhir):
    body = {"resourceType": "HumanName", "family": "Doe"}
    assert "Unknown resource type" in outcome(
        fhir.post("/HumanName", json=body, headers=WRITER), 404
    )


def test_dot_ids_are_refused_on_read(fhir):
    assert "Invalid resource id" in outcome(fhir.get("/Patient/..."), 400)


@pytest.mark.parametrize(
    ("bundle", "words"),
    [
        ({"resourceType": "Bundle", "type": "transaction", "entry": "x"}, "must be a list"),
        ({"resourceType": "Bundle", "type": "transaction", "entry": [1, 2]}, "needs a request"),
        (
            {"resourceType": "Bundle", "type": "transaction", "entry": [{"request": "POST"}]},
            "needs a request",
        ),
        (
            {
                "resourceType": "Bundle",
                "type": "transaction",
                "entry": [{"request": {"method": "POST"}, "resource": {"resourceType": 7}}],
            },
            "has no resource",
        ),
        (
            {
                "resourceType": "Bundle",
                "type": "transaction",
                "entry": [
                    {
                        "request": {"method": "POST", "url": "HumanName"},
                        "resource": {"resourceType": "HumanName"},
                    }
                ],
            },
            "Unknown resource type",
        ),
        ([1, 2, 3], "needs a Bundle"),
    ],
)
def test_badly_shaped_bundles_are_400(fhir, bundle, words):
    before = total(fhir, "Patient")
    assert words in outcome(fhir.post("/", json=bundle, headers=WRITER), 400)
    assert total(fhir, "Patient") == before


def test_too_many_bundle_entries_is_413(fhir):
    entry = {
        "request": {"method": "POST", "url": "Patient"},
        "resource": {"resourceType": "Patient"},
    }
    bundle = {"resourceType": "Bundle", "type": "transaction", "entry": [entry] * 501}
    before = total(fhir, "Patient")
    assert "at most 500 entries" in outcome(fhir.post("/", json=bundle, headers=WRITER), 413)
    assert total(fhir, "Patient") == before


@pytest.mark.parametrize("depth", [100, 3000])
def test_deeply_nested_json_is_400(fhir, depth):
    body = '{"resourceType": "Patient", "extension": ' + "[" * depth + "]" * depth + "}"
    reply = fhir.post(
        "/Patient", content=body, headers={**WRITER, "Content-Type": "application/json"}
    )
    assert "nests too deeply" in outcome(reply, 400)


def test_oversized_body_is_413_without_being_read_whole(fhir):
    body = json.dumps({"resourceType": "Patient", "text": {"div": "x" * (21 * 1024 * 1024)}})
    reply = fhir.post(
        "/Patient", content=body, headers={**WRITER, "Content-Type": "application/json"}
    )
    assert "limited to" in outcome(reply, 413)

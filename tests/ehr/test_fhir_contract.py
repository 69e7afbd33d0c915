"""FHIR R4 contract: what DocGemma relies on from any EHR server, checked over real HTTP."""

from __future__ import annotations

import base64
import uuid

import httpx
import pytest

FHIR_JSON = "application/fhir+json"


def _ids(bundle: dict) -> set[str]:
    return {e["resource"]["id"] for e in bundle.get("entry", [])}


def _search(fhir: httpx.Client, rtype: str, params) -> dict:
    response = fhir.get(f"/{rtype}", params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["resourceType"] == "Bundle" and body["type"] == "searchset"
    return body


def _outcome(response: httpx.Response, status: int) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(FHIR_JSON)
    body = response.json()
    assert body["resourceType"] == "OperationOutcome" and body["issue"][0]["diagnostics"]
    return body


def test_read_patient(fhir: httpx.Client) -> None:
    response = fhir.get("/Patient/abc-123")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(FHIR_JSON)
    patient = response.json()
    assert patient["name"][0]["family"] == "Smith" and patient["birthDate"] == "1958-04-12"


def test_unknown_id_is_404_operation_outcome(fhir: httpx.Client) -> None:
    _outcome(fhir.get("/Patient/does-not-exist-42"), 404)


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"name": "James Wilson"}, {"jwilson-1945", "jwilson-1972", "jwilson-1990"}),
        ([("name", "james"), ("name", "wilson")], {"jwilson-1945", "jwilson-1972", "jwilson-1990"}),
        ({"family": "Wilson", "given": "James", "birthdate": "1972-06-05"}, {"jwilson-1972"}),
        ({"family": "smi"}, {"abc-123"}),
        ({"given": "maria", "family": "garcia"}, {"mgarcia-001"}),
        ({"identifier": "urn:docgemma:mrn|MRN-100001"}, {"abc-123"}),
        ({"family": "Wilson", "birthdate": "lt1950"}, {"jwilson-1945"}),
    ],
)
def test_patient_search(fhir: httpx.Client, params, expected: set[str]) -> None:
    assert _ids(_search(fhir, "Patient", params)) == expected


def test_patient_search_no_match(fhir: httpx.Client) -> None:
    body = _search(fhir, "Patient", {"family": "Zzyzxqwerty"})
    assert body["total"] == 0 and not body.get("entry")


def test_latest_observation_by_code_sorted_and_counted(fhir: httpx.Client) -> None:
    body = _search(
        fhir,
        "Observation",
        {"patient": "abc-123", "code": "http://loinc.org|2823-3", "_sort": "-date", "_count": "1"},
    )
    assert body["total"] == 3 and len(body["entry"]) == 1
    latest = body["entry"][0]["resource"]
    assert latest["valueQuantity"]["value"] == 5.1
    everything = _search(fhir, "Observation", {"patient": "abc-123", "code": "2823-3"})
    dates = sorted(e["resource"]["effectiveDateTime"] for e in everything["entry"])
    assert latest["effectiveDateTime"] == dates[-1]


def test_observation_date_range(fhir: httpx.Client) -> None:
    dates = sorted(
        e["resource"]["effectiveDateTime"][:10]
        for e in _search(fhir, "Observation", {"patient": "abc-123", "code": "2160-0"})["entry"]
    )
    assert len(dates) == 3
    window = [
        ("patient", "abc-123"),
        ("code", "2160-0"),
        ("date", f"ge{dates[1]}"),
        ("date", f"le{dates[1]}"),
    ]
    only_middle = _search(fhir, "Observation", window)
    assert [e["resource"]["effectiveDateTime"][:10] for e in only_middle["entry"]] == [dates[1]]
    after_first = _search(
        fhir, "Observation", {"patient": "abc-123", "code": "2160-0", "date": f"gt{dates[0]}"}
    )
    assert after_first["total"] == 2


def test_medication_requests_by_rxnorm_code(fhir: httpx.Client) -> None:
    warfarin = _search(
        fhir, "MedicationRequest", {"code": "http://www.nlm.nih.gov/research/umls/rxnorm|11289"}
    )
    patients = {e["resource"]["subject"]["reference"] for e in warfarin["entry"]}
    assert {"Patient/mgarcia-001", "Patient/jwilson-1945"} <= patients


@pytest.mark.parametrize(
    ("rtype", "patient", "minimum"),
    [
        ("Condition", "abc-123", 3),
        ("MedicationRequest", "abc-123", 3),
        ("AllergyIntolerance", "abc-123", 1),
        ("Observation", "abc-123", 30),
        ("DocumentReference", "abc-123", 1),
        ("Encounter", "abc-123", 3),
        ("DiagnosticReport", "mgarcia-001", 1),
        ("Media", "mgarcia-001", 1),
        ("ImagingStudy", "jwilson-1972", 1),
    ],
)
def test_search_by_patient(fhir: httpx.Client, rtype: str, patient: str, minimum: int) -> None:
    body = _search(fhir, rtype, {"patient": patient, "_count": "100"})
    assert body["total"] >= minimum
    for entry in body["entry"]:
        ref = entry["resource"].get("subject") or entry["resource"].get("patient")
        assert ref["reference"] == f"Patient/{patient}"


def test_clinical_note_text_is_base64(fhir: httpx.Client) -> None:
    doc = _search(fhir, "DocumentReference", {"patient": "abc-123"})["entry"][0]["resource"]
    text = base64.b64decode(doc["content"][0]["attachment"]["data"]).decode()
    assert "metformin" in text


def test_count_pages_with_next_link(fhir: httpx.Client) -> None:
    body = _search(fhir, "Observation", {"patient": "abc-123", "_count": "2"})
    assert len(body["entry"]) == 2 and body["total"] > 2
    assert any(link["relation"] == "next" for link in body["link"])


def _patient(identifier: str) -> dict:
    return {
        "resourceType": "Patient",
        "identifier": [{"system": "urn:docgemma:test", "value": identifier}],
        "name": [{"family": "Contract", "given": ["Test"]}],
    }


def test_create_returns_201_and_location(fhir: httpx.Client) -> None:
    response = fhir.post("/Patient", json=_patient(str(uuid.uuid4())))
    assert response.status_code == 201
    location = response.headers["location"]
    assert location.split("/_history")[0].rsplit("/", 2)[-2] == "Patient"
    created_id = location.split("/_history")[0].rsplit("/", 1)[-1]
    assert fhir.get(f"/Patient/{created_id}").json()["name"][0]["family"] == "Contract"


def test_conditional_create_is_idempotent(fhir: httpx.Client) -> None:
    key = str(uuid.uuid4())
    header = {"If-None-Exist": f"identifier=urn:docgemma:test|{key}"}
    first = fhir.post("/Patient", json=_patient(key), headers=header)
    second = fhir.post("/Patient", json=_patient(key), headers=header)
    assert first.status_code == 201 and second.status_code == 200
    assert _search(fhir, "Patient", {"identifier": f"urn:docgemma:test|{key}"})["total"] == 1


def test_transaction_resolves_placeholder_references(fhir: httpx.Client) -> None:
    key = str(uuid.uuid4())
    bundle = {
        "resourceType": "Bundle",
        "type": "transaction",
        "entry": [
            {
                "fullUrl": "urn:uuid:" + key,
                "resource": _patient(key),
                "request": {"method": "POST", "url": "Patient"},
            },
            {
                "resource": {
                    "resourceType": "Condition",
                    "subject": {"reference": "urn:uuid:" + key},
                    "code": {"text": "Contract test condition"},
                },
                "request": {"method": "POST", "url": "Condition"},
            },
        ],
    }
    response = fhir.post("/", json=bundle)
    assert response.status_code == 200, response.text
    reply = response.json()
    assert reply["type"] == "transaction-response"
    assert [e["response"]["status"][:3] for e in reply["entry"]] == ["201", "201"]
    patient_id = reply["entry"][0]["response"]["location"].split("/")[1]
    conditions = _search(fhir, "Condition", {"patient": patient_id})
    assert conditions["total"] == 1


def test_transaction_is_atomic(fhir: httpx.Client) -> None:
    key = str(uuid.uuid4())
    bundle = {
        "resourceType": "Bundle",
        "type": "transaction",
        "entry": [
            {"resource": _patient(key), "request": {"method": "POST", "url": "Patient"}},
            {
                "resource": {"resourceType": "Patient", "birthDate": "yesterday"},
                "request": {"method": "POST", "url": "Patient"},
            },
        ],
    }
    assert fhir.post("/", json=bundle).status_code >= 400
    assert _search(fhir, "Patient", {"identifier": f"urn:docgemma:test|{key}"})["total"] == 0


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("post", "/Patient", {"json": {"resourceType": "Patient", "birthDate": "not a date"}}),
        ("post", "/Patient", {"json": {"resourceType": "Patient", "unknownField": 1}}),
        (
            "post",
            "/Patient",
            {"json": {"resourceType": "Observation", "status": "final", "code": {"text": "x"}}},
        ),
        (
            "post",
            "/Patient",
            {"content": b"{not json", "headers": {"Content-Type": "application/fhir+json"}},
        ),
        ("get", "/Observation", {"params": {"date": "last tuesday"}}),
        ("get", "/Observation", {"params": {"_count": "many"}}),
    ],
)
def test_bad_requests_are_400_operation_outcomes(
    fhir: httpx.Client, method: str, path: str, kwargs: dict
) -> None:
    _outcome(getattr(fhir, method)(path, **kwargs), 400)


@pytest.mark.parametrize("family", ["Müller", "MULLER", "mull"])
def test_string_search_ignores_case_and_accents(fhir, family: str) -> None:
    """FHIR string search: case- and accent-insensitive prefix match (Thomas Muller)."""
    reply = fhir.get("/Patient", params={"family": family})
    assert reply.status_code == 200
    ids = {e["resource"]["id"] for e in reply.json().get("entry", [])}
    assert "tmuller-007" in ids

"""The EHR client over real HTTP: name search, chart, idempotent writes, OAuth2 credentials."""

from __future__ import annotations

import re
import uuid

import httpx
import pytest
from fastapi import FastAPI, Form, Request
from fastapi.responses import JSONResponse, Response

from docgemma.config import Settings
from docgemma.ehr.builders import medication_request
from docgemma.ehr.client import EHRClient, EHRError
from docgemma.ehr.server import serve_app


async def test_search_patients_by_full_and_partial_name(fhir_url: str) -> None:
    client = EHRClient(fhir_url)
    assert {p["id"] for p in await client.search_patients("James Wilson")} >= {
        "jwilson-1945",
        "jwilson-1972",
        "jwilson-1990",
    }
    assert [p["id"] for p in await client.search_patients("smith john")] == ["abc-123"]
    assert await client.search_patients("Nobody Anybody") == []


async def test_chart_summarises_the_record(fhir_url: str) -> None:
    chart = await EHRClient(fhir_url).chart("jwilson-1945")
    assert chart.name == "James Wilson" and chart.birth_date == "1945-01-17"
    assert any(m.startswith("amiodarone 200 mg") for m in chart.medications)
    assert {"INR", "Magnesium", "Potassium"} <= {m.name for m in chart.labs}
    assert next(m for m in chart.labs if m.name == "INR").value == "3.1"
    assert any(m.name == "Blood pressure" for m in chart.vitals)
    assert chart.notes and "amiodarone" in chart.notes[0].excerpt


async def test_chart_shows_readable_units_not_ucum_codes(fhir_url: str) -> None:
    text = (await EHRClient(fhir_url).chart("tmuller-007")).text()
    for unit in ("mmHg", "°C", "mL/min/1.73 m²", "beats/min", "breaths/min"):
        assert unit in text
    assert not re.search(r"mm\[Hg\]|\bCel\b|\{1\.73_m2\}", text)


async def test_unknown_patient_is_not_found(fhir_url: str) -> None:
    with pytest.raises(EHRError) as err:
        await EHRClient(fhir_url).read("Patient", "no-such-patient")
    assert err.value.kind == "not_found" and err.value.status == 404


async def test_create_once_creates_exactly_once(fhir_url: str) -> None:
    client = EHRClient(fhir_url)
    order = medication_request("abc-123", "warfarin", "1 mg", "once daily", "2025-06-01")
    key = str(uuid.uuid4())
    first = await client.create_once(order, key)
    second = await client.create_once(order, key)
    assert first[1] is True and second == (first[0], False)
    found = await client.search(
        "MedicationRequest", identifier=f"urn:docgemma:idempotency-key|{key}"
    )
    assert len(found) == 1 and found[0]["medicationCodeableConcept"]["coding"][0]["code"] == "11289"


def test_from_settings_needs_a_url(settings: Settings) -> None:
    with pytest.raises(EHRError) as err:
        EHRClient.from_settings(settings)
    assert err.value.kind == "unavailable"


def _secured_fhir(upstream: str) -> FastAPI:
    """A token endpoint and a FHIR proxy that only answers requests bearing the issued token."""
    app = FastAPI()
    issued: list[str] = []

    @app.post("/token")
    def token(request: Request, grant_type: str = Form()) -> JSONResponse:
        if grant_type != "client_credentials" or not request.headers.get(
            "authorization", ""
        ).startswith("Basic "):
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        issued.append(f"tok-{len(issued) + 1}")
        return JSONResponse(
            {"access_token": issued[-1], "token_type": "Bearer", "expires_in": 3600}
        )

    @app.get("/fhir/{path:path}")
    def proxy(path: str, request: Request) -> Response:
        if not issued or request.headers.get("authorization") != f"Bearer {issued[-1]}":
            return JSONResponse({"resourceType": "OperationOutcome", "issue": []}, status_code=401)
        upstream_reply = httpx.get(f"{upstream}/{path}", params=request.query_params.multi_items())
        return Response(
            upstream_reply.content,
            status_code=upstream_reply.status_code,
            media_type="application/fhir+json",
        )

    return app


async def test_client_credentials_token_is_fetched_and_sent(
    fhir_url: str, settings: Settings
) -> None:
    with serve_app(_secured_fhir(fhir_url)) as base:
        settings = settings.model_copy(
            update={
                "fhir_url": f"{base}/fhir",
                "fhir_client_id": "docgemma",
                "fhir_client_secret": "s3cret",
                "fhir_token_url": f"{base}/token",
            }
        )
        patient = await EHRClient.from_settings(settings).read("Patient", "abc-123")
        assert patient["id"] == "abc-123"
        with pytest.raises(EHRError) as err:
            await EHRClient(f"{base}/fhir").read("Patient", "abc-123")
        assert err.value.kind == "auth"


async def test_runtime_starts_the_embedded_ehr_when_no_url_is_set(settings: Settings) -> None:
    from docgemma.ehr.runtime import ehr_client

    with ehr_client(settings) as client:
        assert client.base_url.startswith("http://127.0.0.1:")
        assert [p["id"] for p in await client.search_patients("Maria Garcia")] == ["mgarcia-001"]
    assert settings.embedded_fhir_db.is_file()
    assert settings.embedded_fhir_db.parent == settings.data_dir
    external = settings.model_copy(update={"fhir_url": "http://ehr.example.org/fhir/"})
    with ehr_client(external) as client:
        assert client.base_url == "http://ehr.example.org/fhir"

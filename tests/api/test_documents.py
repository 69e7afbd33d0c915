"""``/v1/documents`` in this process, on a real Chroma store: a tenant uploads its own
documents, its sessions find them, another tenant's sessions never do; limits, types and
titles are checked with readable errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from pdf_file import text_pdf

from .inprocess import api_settings, client, in_process_api, raw

PROTOCOL = b"""# Ward 7 antibiotic protocol

## Community-acquired pneumonia
For adults with a CURB-65 score of 0 or 1, give amoxicillin 500 mg three times daily for
5 days. With a penicillin allergy, give doxycycline 200 mg on day one, then 100 mg daily.

## Cellulitis
Give flucloxacillin 500 mg four times daily for 5 to 7 days.
"""
HTML = b"""<html><head><title>x</title><script>alert('no')</script></head><body>
<h1>Falls clinic referral</h1><p>Refer anyone over 65 with two falls in a year to the
falls clinic on Thursday mornings.</p></body></html>"""
QUESTION = "What does our protocol give for pneumonia with a penicillin allergy?"


@pytest.fixture
async def app(settings) -> AsyncIterator[Any]:
    async with in_process_api(api_settings(settings, max_document_bytes=2000)) as app:
        yield app


async def upload(
    app: Any, body: bytes, title: str, kind: str = "text/markdown", tenant: str = "clinic-a"
) -> Any:
    async with raw(app, tenant) as http:
        return await http.post(
            "/v1/documents", params={"title": title}, content=body, headers={"Content-Type": kind}
        )


async def test_a_tenants_documents_are_searched_in_its_sessions_only(app) -> None:
    made = await upload(app, PROTOCOL, "Ward 7 antibiotic protocol")
    assert made.status_code == 201, made.text
    assert made.json()["passages"] == 2 and made.json()["kind"] == "markdown"
    async with client(app, "clinic-a") as a, client(app, "clinic-b") as b:
        mine = await a.chat(QUESTION)
        theirs = await b.chat(QUESTION)
    titles = [s.title for s in mine.sources.sources]
    assert "Ward 7 antibiotic protocol — Community-acquired pneumonia" in " ".join(titles)
    assert any("your organisation's document" in t for t in titles)
    assert theirs.sources is None or not any(
        "organisation" in s.title for s in theirs.sources.sources
    )
    assert "Ward 7" not in str([e.model_dump() for e in theirs.events])


async def test_without_rag_and_tools_the_model_answers_alone(app) -> None:
    await upload(app, PROTOCOL, "Ward 7 antibiotic protocol")
    async with client(app) as a:
        turn = await a.chat(QUESTION, enable_rag=False, enable_tools=False)
    assert turn.sources is None
    assert turn.done.final_response.startswith(f"Direct answer: {QUESTION}")
    assert "Unverified" in turn.done.final_response  # the model's own answer, labelled
    assert [s.decision for s in turn.steps if s.status == "decision"][0] == "DIRECT"


async def test_list_and_delete_are_per_tenant(app) -> None:
    made = (await upload(app, HTML, "Falls <b>clinic</b> [referral]", "text/html")).json()
    assert made["title"] == "Falls b clinic /b referral" and made["kind"] == "html"
    async with raw(app) as a, raw(app, "clinic-b") as b:
        assert [d["id"] for d in (await a.get("/v1/documents")).json()] == [made["id"]]
        assert (await b.get("/v1/documents")).json() == []
        assert (await b.delete(f"/v1/documents/{made['id']}")).status_code == 404
        assert (await a.delete(f"/v1/documents/{made['id']}")).status_code == 204
        assert (await a.get("/v1/documents")).json() == []
        assert (await a.delete(f"/v1/documents/{made['id']}")).status_code == 404


@pytest.mark.parametrize(
    ("body", "kind", "title", "status", "code"),
    [
        (b"PK\x03\x04 ...", "application/msword", "Leaflet", 415, "unsupported_document_type"),
        (text_pdf([[]]), "application/pdf", "Scan", 422, "invalid_document"),
        (b"x" * 2001, "text/plain", "Too long", 413, "document_too_large"),
        (b"\xff\xfe broken", "text/plain", "Latin-1", 422, "invalid_document"),
        (b"   \n  ", "text/plain", "Empty", 422, "invalid_document"),
        (b"Some text.", "text/plain", "<>[]", 422, "invalid_document"),
        (b"<html><script>x()</script></html>", "text/html", "Script", 422, "invalid_document"),
    ],
)
async def test_bad_uploads_are_refused_with_a_reason(
    app, body: bytes, kind: str, title: str, status: int, code: str
) -> None:
    reply = await upload(app, body, title, kind)
    assert reply.status_code == status, reply.text
    assert reply.json()["code"] == code and reply.json()["detail"]
    async with raw(app) as http:
        assert (await http.get("/v1/documents")).json() == []


async def test_a_pdf_is_indexed_from_its_text_layer(app) -> None:
    pdf = text_pdf([["Falls clinic referral"], ["Refer anyone over 65 with two falls a year."]])
    made = await upload(app, pdf, "Falls leaflet", "application/pdf")
    assert made.status_code == 201, made.text
    assert (made.json()["kind"], made.json()["passages"]) == ("pdf", 2)
    async with raw(app) as http:
        [listed] = (await http.get("/v1/documents")).json()
    assert listed["title"] == "Falls leaflet" and listed["kind"] == "pdf"


async def test_uploads_need_a_key(app) -> None:
    async with raw(app, None) as http:
        reply = await http.post(
            "/v1/documents",
            params={"title": "x"},
            content=b"text",
            headers={"Content-Type": "text/plain"},
        )
    assert reply.status_code == 401

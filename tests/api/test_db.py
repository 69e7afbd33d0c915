"""The PostgreSQL path against a real server: two API processes share one database, a
conversation started on one continues on the other, and an approval proposed on one
is decided on the other exactly once (the second use, on the first process, is 409)."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import psycopg
import pytest

from docgemma.api.client import ApiFailure, DocGemmaClient

from .conftest import KEYS, Server, medication_requests, start_together
from .scripted_app import PATIENT


@pytest.fixture
def database_url(postgres_url: str) -> str:
    """A fresh database in the session's cluster."""
    name = f"docgemma_{secrets.token_hex(4)}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return postgres_url.rsplit("/", 1)[0] + f"/{name}"


async def test_two_processes_share_one_session(
    make_server: Callable[..., Server], database_url: str, fhir_server
) -> None:
    one, two = start_together(  # replicas starting at once share one schema set-up
        make_server(DOCGEMMA_DATABASE_URL=database_url),
        make_server(DOCGEMMA_DATABASE_URL=database_url),
    )
    async with (
        DocGemmaClient(one.url, KEYS["clinic-a"]) as a1,
        DocGemmaClient(two.url, KEYS["clinic-a"]) as a2,
        DocGemmaClient(two.url, KEYS["clinic-b"]) as b2,
    ):
        first = await a1.chat("Which statin for a 60-year-old?")
        second = await a2.chat("And the starting dose?", session_id=first.session_id)
        assert second.done.session_id == first.session_id
        proposal = await a2.chat(
            f"Prescribe metformin 500 mg twice daily for {PATIENT}", session_id=first.session_id
        )
        orders = len(medication_requests(fhir_server, PATIENT))
        decided = await a1.decide(proposal.approval.approval_id, "approve", approved_by="dr.roy")
        with pytest.raises(ApiFailure) as again:
            await a2.decide(proposal.approval.approval_id, "approve")
        with pytest.raises(ApiFailure) as other_tenant:
            await b2.history(first.session_id)
        on_one, on_two = await a1.history(first.session_id), await a2.history(first.session_id)
    assert decided.done is not None
    assert again.value.status == 409
    assert other_tenant.value.status == 404
    assert len(medication_requests(fhir_server, PATIENT)) == orders + 1
    assert on_one == on_two
    said = [m["content"] for m in on_one["messages"] if m["role"] == "user"]
    assert said[:2] == ["Which statin for a 60-year-old?", "And the starting dose?"]
    assert said[3].startswith("Approved: ")
    with psycopg.connect(database_url) as conn:
        threads = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = %s", (first.session_id,)
        ).fetchone()
    assert threads[0] > 0  # the conversation state itself lives in PostgreSQL


@pytest.mark.real_model
@pytest.mark.timeout(1800)  # two API servers on the real model start in minutes on a busy host
async def test_two_api_processes_share_one_engine_and_one_database(
    make_server: Callable[..., Server], database_url: str, llama_server: str
) -> None:
    """Scaling out: API replicas keep no conversation of their own (PostgreSQL holds it) and
    share one model server over the OpenAI protocol (here llama.cpp's, on the tiny model)."""
    engine = {
        "DOCGEMMA_BACKEND": "openai",
        "DOCGEMMA_OPENAI_BASE_URL": llama_server,
        "DOCGEMMA_OPENAI_DIALECT": "llamacpp",
        "DOCGEMMA_OPENAI_MODEL": "gemma-3-270m",
        "DOCGEMMA_CHAT_FORMAT": "gemma",
        "DOCGEMMA_DATABASE_URL": database_url,
    }
    one, two = start_together(
        make_server(app="docgemma.api.app:create_api", **engine),
        make_server(app="docgemma.api.app:create_api", **engine),
        timeout=900,
    )
    async with (
        DocGemmaClient(one.url, KEYS["clinic-a"], timeout=600) as a1,
        DocGemmaClient(two.url, KEYS["clinic-a"], timeout=600) as a2,
    ):
        first = await a1.chat("What is hypertension?")
        second = await a2.chat("And how is it treated?", session_id=first.session_id)
        on_one, on_two = await a1.history(first.session_id), await a2.history(first.session_id)
    assert first.done is not None and second.done is not None
    assert second.done.session_id == first.session_id
    assert on_one == on_two
    assert [m["content"] for m in on_one["messages"] if m["role"] == "user"] == [
        "What is hypertension?",
        "And how is it treated?",
    ]

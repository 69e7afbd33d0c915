"""Bad input on a real server: readable 422s, 413 over the body limit, 401 without a key,
404 for unknown (or another tenant's) sessions, and a client that hangs up mid-stream
cancels its run without leaving anything half-written."""

from __future__ import annotations

import asyncio
import contextlib
import time

import httpx
import pytest

from docgemma.api.client import ApiFailure, DocGemmaClient, Turn

from .conftest import KEYS, Server
from .scripted_app import direct


def auth(tenant: str = "clinic-a") -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[tenant]}"}


def test_malformed_json_is_a_readable_422(server: Server) -> None:
    reply = httpx.post(
        f"{server.url}/v1/chat/stream",
        content=b'{"message": "warfarin",',
        headers={**auth(), "Content-Type": "application/json"},
    )
    assert reply.status_code == 422
    body = reply.json()
    assert body["code"] == "invalid_request"
    assert body["detail"].startswith("Invalid request: the body is not valid JSON")


def test_a_missing_field_names_the_field(server: Server) -> None:
    reply = httpx.post(f"{server.url}/v1/chat/stream", json={"session": "x"}, headers=auth())
    assert reply.status_code == 422
    assert "message: Field required" in reply.json()["detail"]


def test_a_body_over_the_limit_is_413(server: Server) -> None:
    big = {"message": "x" * 5000}  # the test server's limit is 4096 bytes
    reply = httpx.post(f"{server.url}/v1/chat/stream", json=big, headers=auth())
    assert reply.status_code == 413 and reply.json()["code"] == "body_too_large"


def test_a_chunked_body_over_the_limit_is_413(server: Server) -> None:
    def chunks():
        yield b'{"message": "'
        for _ in range(10):
            yield b"y" * 1000
        yield b'"}'

    reply = httpx.post(
        f"{server.url}/v1/chat/stream",
        content=chunks(),
        headers={**auth(), "Content-Type": "application/json"},
    )
    assert reply.status_code == 413


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer not-a-key"}])
def test_no_or_unknown_key_is_401(server: Server, headers: dict[str, str]) -> None:
    reply = httpx.get(f"{server.url}/v1/sessions", headers=headers)
    assert reply.status_code == 401 and reply.json()["code"] == "unauthorized"
    chat = httpx.post(f"{server.url}/v1/chat/stream", json={"message": "hi"}, headers=headers)
    assert chat.status_code == 401


def test_unknown_session_and_approval_are_404(server: Server) -> None:
    history = httpx.get(f"{server.url}/v1/sessions/nope/history", headers=auth())
    assert history.status_code == 404 and history.json()["code"] == "session_not_found"
    chat = httpx.post(
        f"{server.url}/v1/chat/stream", json={"message": "hi", "session_id": "nope"}, headers=auth()
    )
    assert chat.status_code == 404
    approval = httpx.post(
        f"{server.url}/v1/approvals/nope", json={"action": "approve"}, headers=auth()
    )
    assert approval.status_code == 404 and approval.json()["code"] == "approval_not_found"


def test_health_reports_each_part(server: Server) -> None:
    assert httpx.get(f"{server.url}/health").json() == {"status": "ok"}  # anonymous
    health = httpx.get(f"{server.url}/health", headers=auth()).json()
    assert health["model_loaded"] and health["fhir_reachable"] and health["database"]
    assert health["kb_ready"] is None  # no knowledge base was built in this data folder
    assert health["status"] == "ok" and health["modes"] == ["clinician", "triage"]


async def test_a_client_that_hangs_up_cancels_the_run_and_nothing_is_stored(
    server: Server,
) -> None:
    async with DocGemmaClient(server.url, KEYS["clinic-a"]) as api:
        first = await api.chat("What is gout?")
        turn = Turn()

        async def listen() -> None:
            async for _ in api.stream_chat(
                "please answer slowly and at length", turn, session_id=first.session_id
            ):
                pass

        with contextlib.suppress(TimeoutError):  # leaves the stream: the connection closes
            await asyncio.wait_for(listen(), 1.5)  # before the slow answer is written
        assert turn.done is None
        await asyncio.sleep(6)  # longer than the rest of the slow answer would take
        history = await api.history(first.session_id)
        assert [m["content"] for m in history["messages"]] == [
            "What is gout?",
            direct("What is gout?"),
        ]
        started = time.monotonic()
        after = await api.chat("Still there?", session_id=first.session_id)
        assert time.monotonic() - started < 10  # the thread's lock was released
        history = await api.history(first.session_id)
    assert after.done.final_response == direct("Still there?")
    assert [m["content"] for m in history["messages"]][2:] == [
        "Still there?",
        direct("Still there?"),
    ]


async def test_another_tenants_session_is_404_and_untouched(server: Server) -> None:
    async with (
        DocGemmaClient(server.url, KEYS["clinic-a"]) as a,
        DocGemmaClient(server.url, KEYS["clinic-b"]) as b,
    ):
        mine = await a.chat("Private question of clinic A")
        for attempt in (
            b.history(mine.session_id),
            b.export(mine.session_id),
            b.delete(mine.session_id),
            b.chat("intrusion", session_id=mine.session_id),
        ):
            with pytest.raises(ApiFailure) as refused:
                await attempt
            assert refused.value.status == 404
        assert mine.session_id not in [s["id"] for s in await b.sessions()]
        history = await a.history(mine.session_id)
    assert [m["content"] for m in history["messages"]] == [
        "Private question of clinic A",
        direct("Private question of clinic A"),
    ]

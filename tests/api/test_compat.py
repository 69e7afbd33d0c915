"""The plain-stream endpoints on a real server: ``POST /query_stream`` runs patient triage and
streams the reasoning after the think marker and the answer after the answer marker;
``GET /get_history`` returns only what the user and the assistant said."""

from __future__ import annotations

import httpx

from .conftest import KEYS, Server
from .scripted_app import TRIAGE_REPLY

THINK, ANSWER = "<|im_start|>think\n", "\n<|im_start|>answer\n"


def auth(tenant: str = "clinic-c") -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[tenant]}"}


def ask(server: Server, query: str, thread_id: str | None = None) -> tuple[str, str]:
    body = {"query": query, **({"thread_id": thread_id} if thread_id else {})}
    with httpx.stream(
        "POST", f"{server.url}/query_stream", json=body, headers=auth(), timeout=60
    ) as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/plain")
        text = "".join(reply.iter_text())
        return reply.headers["x-thread-id"], text


def test_query_stream_marks_reasoning_and_answer(server: Server) -> None:
    thread, text = ask(server, "I have fever and a cough since last week")
    reasoning, answer = text.split(ANSWER)
    assert reasoning.startswith(THINK) and "a cold fits the symptoms" in reasoning
    assert TRIAGE_REPLY.split(".")[0] in answer
    assert "<think>" not in text


def test_get_history_continues_the_thread_and_hides_reasoning(server: Server) -> None:
    thread, _ = ask(server, "I have a headache")
    same, _ = ask(server, "It started yesterday", thread)
    assert same == thread
    history = httpx.get(f"{server.url}/get_history", params={"thread_id": thread}, headers=auth())
    said = history.json()
    assert [m["role"] for m in said] == ["user", "assistant", "user", "assistant"]
    assert [m["content"] for m in said if m["role"] == "user"] == [
        "I have a headache",
        "It started yesterday",
    ]
    assert "a cold fits the symptoms" not in history.text


def test_a_thread_id_the_client_chose_starts_and_continues_a_thread(server: Server) -> None:
    first, _ = ask(server, "hello", "sunny-otter-42")
    again, _ = ask(server, "I have a rash", "sunny-otter-42")
    assert again == first
    history = httpx.get(
        f"{server.url}/get_history", params={"thread_id": "sunny-otter-42"}, headers=auth()
    )
    assert [m["content"] for m in history.json() if m["role"] == "user"] == [
        "hello",
        "I have a rash",
    ]

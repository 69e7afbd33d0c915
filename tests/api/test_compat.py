"""The plain-stream endpoints: ``POST /query_stream`` streams the reasoning after the think
marker and the answer after the answer marker; ``GET /get_history`` returns only what
the user and the assistant said."""

from __future__ import annotations

import httpx

from .conftest import KEYS, Server

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
    assert reasoning == THINK + "considering I have fever and a cough since last week"
    assert answer.strip() == "Direct answer: I have fever and a cough since last week"
    assert "<think>" not in text


def test_get_history_continues_the_thread_and_hides_reasoning(server: Server) -> None:
    thread, _ = ask(server, "I have a headache")
    same, _ = ask(server, "It started yesterday", thread)
    assert same == thread
    history = httpx.get(f"{server.url}/get_history", params={"thread_id": thread}, headers=auth())
    assert history.json() == [
        {"role": "user", "content": "I have a headache"},
        {"role": "assistant", "content": "Direct answer: I have a headache"},
        {"role": "user", "content": "It started yesterday"},
        {"role": "assistant", "content": "Direct answer: It started yesterday"},
    ]


def test_a_thread_id_the_server_did_not_issue_is_404(server: Server) -> None:
    reply = httpx.post(
        f"{server.url}/query_stream",
        json={"query": "hello", "thread_id": "sunny-otter-42"},
        headers=auth(),
    )
    assert reply.status_code == 404
    history = httpx.get(
        f"{server.url}/get_history", params={"thread_id": "sunny-otter-42"}, headers=auth()
    )
    assert history.status_code == 404

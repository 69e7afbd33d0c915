"""``POST /query_stream`` in this process: a new thread runs the patient-triage graph with
the request's demographics, a thread name the client chose is kept per tenant, and bad
input gets a readable 422."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from .inprocess import api_settings, in_process_api, raw

ANSWER = "\n<|im_start|>answer\n"
BABY_FEVER = "My baby has had a high temperature since this morning"


@pytest.fixture
async def app(settings) -> AsyncIterator[Any]:
    async with in_process_api(api_settings(settings)) as app:
        yield app


async def ask(app: Any, tenant: str = "clinic-a", **body: Any) -> tuple[str, str]:
    async with raw(app, tenant) as http:
        reply = await http.post("/query_stream", json=body)
    assert reply.status_code == 200, reply.text
    return reply.headers["x-thread-id"], reply.text


async def test_a_new_thread_is_a_triage_session(app) -> None:
    thread, text = await ask(app, query="I have fever and a cough since last week")
    reasoning, answer = text.split(ANSWER)
    assert reasoning.startswith("<|im_start|>think\n")
    assert "flu page" in reasoning  # the triage graph's reasoning step
    assert "This sounds like flu" in answer
    async with raw(app) as http:
        sessions = (await http.get("/v1/sessions")).json()
    assert [(s["id"], s["mode"], s["profile"]) for s in sessions] == [(thread, "triage", "triage")]


async def test_demographics_reach_the_red_flag_rules(app) -> None:
    _, with_age = await ask(app, query=BABY_FEVER, demographics={"age_band": "under 3 months"})
    _, without = await ask(app, query=BABY_FEVER, demographics=None)
    assert "Call 999 or go to A&E now" in with_age.split(ANSWER)[1]
    assert "Call 999" not in without.split(ANSWER)[1]


async def test_demographics_given_once_hold_for_the_thread(app) -> None:
    await ask(
        app, query="Hello", thread_id="tiny-patient", demographics={"age_band": "under 3 months"}
    )
    _, later = await ask(app, query=BABY_FEVER, thread_id="tiny-patient")
    assert "Call 999 or go to A&E now" in later


async def test_a_client_chosen_thread_id_is_kept_per_tenant(app) -> None:
    first, _ = await ask(app, query="I have a sore throat", thread_id="sunny-otter-42")
    again, _ = await ask(app, query="It is worse today", thread_id="sunny-otter-42")
    by_id, _ = await ask(app, query="And a fever now", thread_id=first)
    other, _ = await ask(app, "clinic-b", query="My knee hurts", thread_id="sunny-otter-42")
    assert again == first == by_id  # the name and the issued id reach the same session
    assert other != first  # the same name, another tenant: another session
    async with raw(app) as http:
        mine = (await http.get("/get_history", params={"thread_id": "sunny-otter-42"})).json()
    async with raw(app, "clinic-b") as http:
        theirs = (await http.get("/get_history", params={"thread_id": "sunny-otter-42"})).json()
        unknown = await http.get("/get_history", params={"thread_id": first})
    assert [m["content"] for m in mine if m["role"] == "user"] == [
        "I have a sore throat",
        "It is worse today",
        "And a fever now",
    ]
    assert [m["content"] for m in theirs if m["role"] == "user"] == ["My knee hurts"]
    assert unknown.status_code == 404  # another tenant's issued id is unknown here


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"query": "hi", "thread_id": "../etc/passwd"}, "thread_id"),
        ({"query": "hi", "thread_id": "a" * 65}, "thread_id"),
        ({"query": "hi", "demographics": {"age": 34}}, "demographics.age"),
        ({"query": "hi", "demographics": {"age_band": "teenager"}}, "demographics.age_band"),
    ],
)
async def test_bad_input_is_a_readable_422(app, body: dict[str, Any], where: str) -> None:
    async with raw(app) as http:
        reply = await http.post("/query_stream", json=body)
    assert reply.status_code == 422
    assert reply.json()["code"] == "invalid_request" and where in reply.json()["detail"]


async def test_demographics_on_a_clinician_thread_are_refused(app) -> None:
    async with raw(app) as http:
        chat = await http.post("/v1/chat/stream", json={"message": "What is gout?"})
        session = chat.headers["x-docgemma-session"]
        reply = await http.post(
            "/query_stream",
            json={"query": "and now?", "thread_id": session, "demographics": {"sex": "male"}},
        )
        plain = await http.post("/query_stream", json={"query": "and now?", "thread_id": session})
    assert reply.status_code == 422 and reply.json()["code"] == "demographics_not_triage"
    assert plain.status_code == 200 and "Direct answer: and now?" in plain.text

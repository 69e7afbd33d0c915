"""Expert profiles per tenant and their reasoning switch, in this process: a tenant lists and
uses its own profiles and the shared ones, never another's; a profile that keeps its
reasoning from the client sends no ``thinking`` event, though the model still reasons."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from docgemma.api.client import ApiFailure

from .inprocess import api_settings, client, in_process_api, profiles_file, raw

PROFILES = [
    {"name": "general", "title": "Clinical assistant"},
    {
        "name": "ward7",
        "title": "Ward 7 protocols",
        "tenants": ["clinic-a"],
        "stream_reasoning": False,
        "system_prompt": "You answer for ward 7.",
    },
    {"name": "triage", "title": "Patient triage", "mode": "triage"},
]


@pytest.fixture
async def app(settings, tmp_path) -> AsyncIterator[Any]:
    path = profiles_file(tmp_path, PROFILES)
    async with in_process_api(api_settings(settings, expert_profiles_path=path)) as app:
        yield app


async def test_each_tenant_lists_and_uses_its_own_profiles(app) -> None:
    async with client(app, "clinic-a") as a, client(app, "clinic-b") as b:
        assert [p["name"] for p in await a.profiles()] == ["general", "ward7", "triage"]
        assert [p["name"] for p in await b.profiles()] == ["general", "triage"]
        turn = await a.chat("What is the usual dose of amoxicillin?", profile="ward7")
        assert turn.done.final_response.startswith(
            "Direct answer: What is the usual dose of amoxicillin?"
        )
        with pytest.raises(ApiFailure) as refused:
            await b.chat("What is the usual dose of amoxicillin?", profile="ward7")
    assert refused.value.status == 422 and refused.value.code == "unknown_profile"
    assert refused.value.detail.endswith("(profiles: general, triage).")  # clinic-b's only


async def test_a_quiet_profile_streams_no_reasoning(app) -> None:
    async with client(app) as a:
        loud = await a.chat("What is gout?")
        quiet = await a.chat("What is gout?", profile="ward7")
    assert loud.thinking == "considering What is gout?"
    assert quiet.thinking == ""
    assert quiet.done.final_response.startswith("Direct answer: What is gout?")
    assert [e.event for e in quiet.events if e.event == "thinking"] == []
    profiles = {p["name"]: p["stream_reasoning"] for p in await client(app).profiles()}
    assert profiles == {"general": True, "ward7": False, "triage": True}


async def test_a_quiet_profile_sends_no_think_section_on_the_plain_stream(app) -> None:
    async with client(app) as a:
        turn = await a.chat("What is gout?", profile="ward7")
    async with raw(app) as http:
        reply = await http.post(
            "/query_stream", json={"query": "And gout in the knee?", "thread_id": turn.session_id}
        )
    assert reply.status_code == 200
    assert "<|im_start|>think" not in reply.text and "considering" not in reply.text
    assert "Direct answer: And gout in the knee?" in reply.text


async def test_triage_refuses_to_run_without_retrieval(app) -> None:
    async with client(app) as a:
        with pytest.raises(ApiFailure) as refused:
            await a.chat("I have a rash", mode="triage", enable_rag=False)
        turn = await a.chat("I have a rash", mode="triage", enable_tools=False)
    assert refused.value.status == 422 and refused.value.code == "rag_required"
    assert "enable_rag" in refused.value.detail
    assert turn.done is not None and "flu" in turn.done.final_response.lower()

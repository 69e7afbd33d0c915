"""Twenty concurrent sessions across three tenants on one server (scripted model): each
session's history holds exactly its own messages, each tenant lists only its own
sessions, and every cross-tenant read or approval is refused."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from docgemma.api.client import ApiFailure, DocGemmaClient

from .conftest import KEYS, Server
from .scripted_app import PATIENT, direct

TENANTS = ["clinic-a", "clinic-b", "clinic-c"]


async def conversation(server: Server, tenant: str, n: int) -> tuple[str, str, list[str]]:
    marker = f"{tenant}-session-{n}"
    async with DocGemmaClient(server.url, KEYS[tenant]) as api:
        first = await api.chat(f"first question of {marker}")
        assert first.done.final_response == direct(f"first question of {marker}")
        second = await api.chat(f"second question of {marker}", session_id=first.session_id)
        assert second.done.session_id == first.session_id
        assert second.answer.strip() == direct(f"second question of {marker}")
    return tenant, first.session_id, [f"first question of {marker}", f"second question of {marker}"]


async def test_twenty_concurrent_sessions_stay_apart(server: Server) -> None:
    plan = list(zip(itertools.cycle(TENANTS), range(20), strict=False))
    results = await asyncio.gather(*(conversation(server, t, n) for t, n in plan))
    assert len({sid for _, sid, _ in results}) == 20
    clients = {t: DocGemmaClient(server.url, KEYS[t]) for t in TENANTS}
    try:
        for tenant, session_id, asked in results:
            history = await clients[tenant].history(session_id)
            said = [m["content"] for m in history["messages"]]
            assert said == [
                asked[0],
                direct(asked[0]),
                asked[1],
                direct(asked[1]),
            ]
            for other in TENANTS:
                if other != tenant:
                    with pytest.raises(ApiFailure) as refused:
                        await clients[other].history(session_id)
                    assert refused.value.status == 404
        for tenant in TENANTS:
            listed = {s["id"] for s in await clients[tenant].sessions()}
            own = {sid for t, sid, _ in results if t == tenant}
            assert own <= listed
            assert not listed & {sid for t, sid, _ in results if t != tenant}
    finally:
        for api in clients.values():
            await api.http.aclose()


async def test_another_tenants_approval_is_404_and_stays_pending(server: Server) -> None:
    async with (
        DocGemmaClient(server.url, KEYS["clinic-a"]) as a,
        DocGemmaClient(server.url, KEYS["clinic-b"]) as b,
    ):
        turn = await a.chat(f"Prescribe metformin 500 mg twice daily for {PATIENT}")
        with pytest.raises(ApiFailure) as refused:
            await b.decide(turn.approval.approval_id, "approve")
        assert refused.value.status == 404
        pending = (await a.history(turn.session_id))["pending_approval"]
    assert pending["approval_id"] == turn.approval.approval_id

"""Persistence across a hard kill: hold a conversation, SIGKILL the server, start it again
on the same data folder — the history and the pending approval are intact, and the
approval still works exactly once."""

from __future__ import annotations

from collections.abc import Callable

from docgemma.api.client import DocGemmaClient

from .conftest import KEYS, Server, medication_requests
from .scripted_app import PATIENT


async def test_history_and_pending_approval_survive_sigkill(
    make_server: Callable[..., Server], fhir_server
) -> None:
    server = make_server().start()
    async with DocGemmaClient(server.url, KEYS["clinic-b"]) as api:
        first = await api.chat(f"Summarise the chart of patient {PATIENT}")
        proposal = await api.chat(
            f"Prescribe metformin 500 mg twice daily for {PATIENT}", session_id=first.session_id
        )
        before = await api.history(first.session_id)
    assert proposal.approval is not None
    orders = len(medication_requests(fhir_server, PATIENT))

    server.kill()
    server.start()

    async with DocGemmaClient(server.url, KEYS["clinic-b"]) as api:
        after = await api.history(first.session_id)
        assert after == before
        assert after["pending_approval"]["approval_id"] == proposal.approval.approval_id
        assert [m["role"] for m in after["messages"]] == ["user", "assistant"] * 2
        decided = await api.decide(proposal.approval.approval_id, "approve", approved_by="dr.kim")
        sessions = await api.sessions()
    assert decided.done is not None and not decided.done.approval_pending
    assert any(s.label == "Prescription" and s.status == "tool_done" for s in decided.steps)
    assert len(medication_requests(fhir_server, PATIENT)) == orders + 1
    assert first.session_id in [s["id"] for s in sessions]

"""A write and its Provenance are one transaction: both are stored, or neither is."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fhir_server import embedded_fhir

from docgemma.config import Settings
from docgemma.ehr import builders
from docgemma.ehr.client import EHRClient
from docgemma.ehr.codes import IDEMPOTENCY_SYSTEM
from docgemma.tools.args import PrescribeMedicationArgs
from docgemma.tools.base import ToolContext, ToolErrorType
from docgemma.tools.ehr import prescribe_medication

TOKEN = "atomicity-token"
ARGS = PrescribeMedicationArgs(
    patient_id="abc-123", medication_name="dofetilide", dosage="500 mcg", frequency="twice daily"
)


fhir_url = embedded_fhir("function", write_token=TOKEN)


@pytest.fixture
def ehr(fhir_url: str) -> EHRClient:
    """A guarded embedded server, as in the app: the client holds its write token."""
    return EHRClient(fhir_url, token=TOKEN)


def approved(settings: Settings, ehr: EHRClient, key: str) -> ToolContext:
    return ToolContext(
        settings=settings,
        fhir=ehr,
        session_id="session-atomic",
        approved_by="Dr. Ada Test",
        idempotency_key=key,
    )


async def written(ehr: EHRClient, key: str) -> tuple[list[dict], list[dict]]:
    orders = await ehr.search("MedicationRequest", identifier=f"{IDEMPOTENCY_SYSTEM}|{key}")
    provenance = await ehr.search("Provenance", patient="abc-123")
    mine = [
        p
        for p in provenance
        if any(e["what"].get("identifier", {}).get("value") == key for e in p.get("entity", []))
    ]
    return orders, mine


async def test_a_failing_provenance_leaves_no_order_behind(settings, ehr, monkeypatch):
    real = builders.provenance

    def broken(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return {**real(*args, **kwargs), "recorded": "sometime yesterday"}

    monkeypatch.setattr(builders, "provenance", broken)
    outcome = await prescribe_medication(ARGS, approved(settings, ehr, "key-atomic"))
    assert outcome.error_type is ToolErrorType.INVALID_ARGS
    assert await written(ehr, "key-atomic") == ([], [])

    monkeypatch.setattr(builders, "provenance", real)  # the retry of the same approval
    retried = await prescribe_medication(ARGS, approved(settings, ehr, "key-atomic"))
    assert retried.ok and retried.data["created"] is True
    (order,), (provenance,) = await written(ehr, "key-atomic")
    assert retried.data["reference"] == f"MedicationRequest/{order['id']}"
    assert retried.data["provenance"] == f"Provenance/{provenance['id']}"
    assert provenance["target"][0] == {"reference": f"MedicationRequest/{order['id']}"}


async def test_repeated_and_concurrent_approvals_give_one_order_and_one_provenance(settings, ehr):
    ctx = approved(settings, ehr, "key-repeat")
    outcomes = await asyncio.gather(*(prescribe_medication(ARGS, ctx) for _ in range(4)))
    again = await prescribe_medication(ARGS, ctx)
    assert all(o.ok for o in [*outcomes, again])
    assert sum(o.data["created"] for o in outcomes) == 1 and again.data["created"] is False
    assert {o.data["reference"] for o in [*outcomes, again]} == {outcomes[0].data["reference"]}
    assert {o.data["provenance"] for o in [*outcomes, again]} == {outcomes[0].data["provenance"]}
    orders, provenance = await written(ehr, "key-repeat")
    assert len(orders) == 1 and len(provenance) == 1

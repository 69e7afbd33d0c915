"""The app's mounted FHIR server: anyone reaching the port may read, only the agent may write."""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from docgemma.config import Settings
from docgemma.ehr.client import EHRClient
from docgemma.ehr.server import serve_app

ROOT = Path(__file__).resolve().parents[2]
ORDER = {
    "resourceType": "MedicationRequest",
    "status": "active",
    "intent": "order",
    "subject": {"reference": "Patient/abc-123"},
    "medicationCodeableConcept": {"text": "dofetilide 500 mcg"},
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def load_app_module() -> Any:
    spec = importlib.util.spec_from_file_location("docgemma_app_token", ROOT / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_mounted_fhir_refuses_anonymous_writes_and_takes_the_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app_module = load_app_module()
    made: list[tuple[Settings, EHRClient]] = []

    class RecordingClient(EHRClient):
        @classmethod
        def from_settings(cls, settings: Any, base_url: str | None = None) -> EHRClient:
            client = EHRClient.from_settings(settings, base_url)
            made.append((settings, client))
            return client

    monkeypatch.setattr(app_module, "EHRClient", RecordingClient)
    port = free_port()
    settings = Settings(data_dir=tmp_path, host="0.0.0.0", port=port, offline=True)
    app = app_module.create_app(settings, agent_factory=lambda s, e: None)
    ((used, agent_ehr),) = made
    assert used.fhir_token and len(used.fhir_token) >= 32
    with serve_app(app, port=port) as base:
        fhir = f"{base}/fhir"
        assert used.fhir_url == fhir
        anonymous = httpx.post(f"{fhir}/MedicationRequest", json=ORDER, timeout=30)
        assert anonymous.status_code == 401
        assert anonymous.json()["resourceType"] == "OperationOutcome"
        assert httpx.get(f"{fhir}/Patient/abc-123", timeout=30).status_code == 200
        reference, created = await agent_ehr.create_once(ORDER, "app-token-test")
        assert created
        stored = httpx.get(f"{fhir}/{reference}", timeout=30).json()
        assert stored["medicationCodeableConcept"]["text"] == "dofetilide 500 mcg"

"""The API mounted in the app (``/api``): one process serves the Gradio page and the API,
sharing the app's agent, its mounted FHIR server and its data folder. Scripted model."""

from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from docgemma.agent.factory import build_agent
from docgemma.api.auth import hash_key
from docgemma.api.client import DocGemmaClient
from docgemma.config import Settings

from .conftest import ROOT, free_port
from .scripted_app import ScriptedModel, respond


def load_app_module() -> Any:
    spec = importlib.util.spec_from_file_location("docgemma_app_api", ROOT / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def serving(app: Any, port: int) -> Iterator[str]:
    """uvicorn in a thread, lifespan on (the API opens its database there)."""
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            assert thread.is_alive(), "the app failed to start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


@pytest.mark.server  # serves the whole app
async def test_the_app_serves_the_api_beside_the_page(tmp_path: Path) -> None:
    port = free_port()
    settings = Settings(
        data_dir=tmp_path,
        port=port,
        offline=True,
        backend="scripted",
        api_keys={hash_key("ward-key"): "ward"},
    )

    async def agent(s: Settings, ehr):
        return await build_agent(s, ehr, ScriptedModel(responder=respond))

    app = load_app_module().create_app(settings, agent_factory=agent)
    with serving(app, port) as base:
        async with DocGemmaClient(f"{base}/api", "ward-key") as api:
            turn = await api.chat("Summarise the chart of patient abc-123")
            history = await api.history(turn.session_id)
            health = await api.health()
        page = httpx.get(f"{base}/", timeout=30)
        anonymous = httpx.get(f"{base}/api/v1/sessions", timeout=30)
    assert turn.done.final_response.endswith("[1]")  # a statement citing the record
    assert "abc-123" in turn.sources.sources[0].title  # read from the app's own FHIR mount
    assert [m["role"] for m in history["messages"]] == ["user", "assistant"]
    assert health["model_loaded"] and health["fhir_reachable"]
    assert page.status_code == 200 and "gradio" in page.text.lower()
    assert anonymous.status_code == 401

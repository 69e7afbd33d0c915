"""DocGemma's web app: the Gradio UI, the HTTP API and the embedded FHIR server in one
FastAPI process.

Run ``python app.py`` (this is also the Hugging Face Space's ``app_file``). The
embedded EHR is served under ``/fhir`` of the same app unless ``DOCGEMMA_FHIR_URL``
points at an external FHIR server; the agent and the patient panel reach it over HTTP.
The API (``/api/v1/...``, ``/api/health``) shares the app's agent; it answers only
requests with a configured API key.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import gradio as gr
import uvicorn
from fastapi import FastAPI

from docgemma.agent.factory import build_agent
from docgemma.api import create_api
from docgemma.api.runtime import hosted_runtime
from docgemma.config import Settings, get_settings
from docgemma.ehr.client import EHRClient
from docgemma.ehr.runtime import EMBEDDED_DB
from docgemma.tools.literature_index import prepare_index
from docgemma.ui.handlers import Handlers
from docgemma.ui.layout import CSS, build_blocks
from docgemma.ui.patients import EHRPatients
from docgemma.ui.session import TurnRunner

log = logging.getLogger("docgemma.app")
AgentFactory = Callable[[Settings, EHRClient], TurnRunner | Awaitable[TurnRunner]]


class AgentSlot:
    """Builds the agent once, on first use or at start-up, whichever comes first."""

    def __init__(self, settings: Settings, ehr: EHRClient, factory: AgentFactory) -> None:
        self._settings, self._ehr, self._factory = settings, ehr, factory
        self._agent: TurnRunner | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> TurnRunner:
        async with self._lock:
            if self._agent is None:
                made = self._factory(self._settings, self._ehr)
                self._agent = await made if inspect.isawaitable(made) else made
            return self._agent

    @property
    def ready(self) -> bool:
        return self._agent is not None

    async def close(self) -> None:
        closer = getattr(self._agent, "aclose", None)
        if closer is not None:
            await closer()


def _local_url(settings: Settings) -> str:
    host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
    return f"http://{host}:{settings.port}/fhir"


def create_app(
    settings: Settings | None = None, agent_factory: AgentFactory = build_agent
) -> FastAPI:
    """The whole app; ``agent_factory`` lets tests run the same page on another agent."""
    settings = settings or get_settings()
    log.info("%s", settings.describe())
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    fhir_app = None
    if settings.fhir_url is None:
        from docgemma.ehr.server import create_app as create_fhir_app

        token = secrets.token_urlsafe(32)  # writes only through the agent's client
        fhir_app = create_fhir_app(settings.data_dir / EMBEDDED_DB, write_token=token)
        settings = settings.model_copy(
            update={"fhir_url": _local_url(settings), "fhir_token": token}
        )
    ehr = EHRClient.from_settings(settings)
    slot = AgentSlot(settings, ehr, agent_factory)
    patients = EHRPatients(ehr)
    api = create_api(settings, hosted_runtime(slot.get, ehr, lambda: slot.ready))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        warm = asyncio.create_task(slot.get())
        warm.add_done_callback(_report_warmup)
        index = asyncio.create_task(asyncio.to_thread(prepare_index, settings))
        index.add_done_callback(_report_warmup)
        async with api.router.lifespan_context(api):
            yield
        await slot.close()

    app = FastAPI(title="DocGemma", lifespan=lifespan)
    if fhir_app is not None:
        app.mount("/fhir", fhir_app)
    app.mount("/api", api)
    upload_dir = settings.data_dir / "uploads"
    handlers = Handlers(settings, slot.get, patients, upload_dir)
    blocks = build_blocks(handlers, settings)
    return gr.mount_gradio_app(
        app,
        blocks,
        path="/",
        allowed_paths=[str(upload_dir)],
        css=CSS,
        footer_links=[],
        max_file_size=settings.max_image_bytes * 2,
    )


def _report_warmup(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error(
            "Start-up task failed: %s (the affected feature reports itself unavailable)",
            task.exception(),
        )


def main() -> None:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    settings = get_settings()
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info")


if __name__ == "__main__":
    main()

"""DocGemma's web app: the Gradio UI, the HTTP API and the embedded FHIR server in one
FastAPI process.

Run ``python app.py`` (this is also the Hugging Face Space's ``app_file``). The
embedded EHR is served under ``/fhir`` of the same app unless ``DOCGEMMA_FHIR_URL``
points at an external FHIR server; the agent and the patient panel reach it over HTTP.
Who may use the page and ``/fhir`` is ``docgemma.auth``'s policy (SECURITY.md).
The API (``/api/v1/...``, ``/api/health``) shares the app's agent; it answers only
requests with a configured API key.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import logging
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import gradio as gr
from fastapi import FastAPI, Request, Response

from docgemma.agent.runner import TurnRunner
from docgemma.api import create_api
from docgemma.api.app import serve
from docgemma.api.local_tenant import idle_forgetter, page_recorder, page_transcript
from docgemma.api.runtime import hosted_runtime
from docgemma.api.store import SessionStore
from docgemma.assets import model_problem
from docgemma.auth import Access, GuardedFHIR, Mode, SignInGuard
from docgemma.config import Settings, get_settings
from docgemma.ehr.client import EHRClient
from docgemma.experts import load_profiles
from docgemma.once import BuiltOnce
from docgemma.tools.literature_index import prepare_index
from docgemma.ui.handlers import Handlers
from docgemma.ui.layout import CSS, build_blocks
from docgemma.ui.patients import EHRPatients
from docgemma.ui.retention import keep_tidy
from docgemma.ui.triage_tab import TriageFactory, TriageHandlers, shared_model_triage

log = logging.getLogger("docgemma.app")
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' 'unsafe-eval'",  # Gradio's page needs both
        "style-src 'self' 'unsafe-inline' https://fonts.googleapis.com",
        "font-src 'self' data: https://fonts.gstatic.com",
        "img-src 'self' data: blob:",  # no remote image can carry data out of the page
        "media-src 'self' data: blob:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    ]
)
"""Sent with every response: the second line of defence behind ``docgemma.ui.untrusted``."""
SPACES_ORIGIN = "https://huggingface.co"
"""Where a Hugging Face Space's page frames the app (``SPACE_ID`` is set on a Space)."""


def framing_headers(on_space: bool) -> dict[str, str]:
    """Who may frame the page: only itself, so no other site can overlay an Approve button
    (clickjacking); on a Hugging Face Space also the Space's own page, which embeds it."""
    if on_space:
        return {
            "Content-Security-Policy": f"{CONTENT_SECURITY_POLICY}; "
            f"frame-ancestors 'self' {SPACES_ORIGIN}"
        }
    return {
        "Content-Security-Policy": f"{CONTENT_SECURITY_POLICY}; frame-ancestors 'self'",
        "X-Frame-Options": "SAMEORIGIN",
    }


AgentFactory = Callable[[Settings, EHRClient], TurnRunner | Awaitable[TurnRunner]]


async def build_agent(settings: Settings, ehr: EHRClient) -> TurnRunner:
    """The real agent; its imports (graph, model runtime, classifiers) wait until it is built,
    so the page is served while they load."""
    factory = await asyncio.to_thread(importlib.import_module, "docgemma.agent.factory")
    return await factory.build_agent(settings, ehr)


class AgentSlot(BuiltOnce[TurnRunner]):
    """The agent, built on first use or at start-up, whichever comes first.

    The app starts building it in the background as soon as it serves; a turn that
    arrives earlier waits for the same build (the page shows that the model is loading).
    """

    def __init__(self, settings: Settings, ehr: EHRClient, factory: AgentFactory) -> None:
        super().__init__(lambda: factory(settings, ehr))

    async def close(self) -> None:
        closer = getattr(self.built(), "aclose", None)
        if closer is not None:
            await closer()


def _local_url(settings: Settings) -> str:
    host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
    return f"http://{host}:{settings.port}/fhir"


def create_app(
    settings: Settings | None = None,
    agent_factory: AgentFactory = build_agent,
    triage_factory: TriageFactory = shared_model_triage,
) -> FastAPI:
    """The whole app; the factories let tests run the same page on other agents."""
    settings = settings or get_settings()
    log.info("%s", settings.describe())
    access = Access.from_settings(settings, embedded_ehr=settings.fhir_url is None)
    log.info("Access: %s mode", access.mode)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    fhir_app = None
    if settings.fhir_url is None:
        from docgemma.ehr.server import create_app as create_fhir_app

        token = secrets.token_urlsafe(32)  # writes only through the agent's client
        fhir_app = GuardedFHIR(
            create_fhir_app(
                settings.embedded_fhir_db, write_token=token, openapi=settings.api_docs
            ),
            access,
            token,
        )
        settings = settings.model_copy(
            update={"fhir_url": _local_url(settings), "fhir_token": token}
        )
    ehr = EHRClient.from_settings(settings)
    slot = AgentSlot(settings, ehr, agent_factory)
    patients = EHRPatients(ehr)

    async def build_triage() -> Any:  # on the agent's model, so the agent comes first
        made = triage_factory(settings, await slot.get())
        return await made if inspect.isawaitable(made) else made

    triage_slot = BuiltOnce(build_triage)
    api = create_api(settings, hosted_runtime(slot.get, triage_slot.get, ehr, slot.built))

    upload_dir = settings.data_dir / "uploads"

    async def checkpointer() -> Any:
        return getattr(await slot.get(), "checkpointer", None)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        from docgemma.kb import prepare_knowledge_base  # Chroma loads after the page is up

        warm = asyncio.create_task(slot.get())
        warm.add_done_callback(_report_warmup)
        index = asyncio.create_task(asyncio.to_thread(prepare_index, settings))
        index.add_done_callback(_report_warmup)
        kb = asyncio.create_task(asyncio.to_thread(prepare_knowledge_base, settings))
        kb.add_done_callback(_report_warmup)
        forget = idle_forgetter(api_store)
        async with api.router.lifespan_context(api):  # the API's store exists from here on
            tidy = asyncio.create_task(keep_tidy(settings, upload_dir, checkpointer, forget=forget))
            yield
            tidy.cancel()
        await slot.close()

    docs = {} if settings.api_docs else {"docs_url": None, "redoc_url": None, "openapi_url": None}
    app = FastAPI(title="DocGemma", lifespan=lifespan, **docs)

    headers = framing_headers(on_space=bool(os.environ.get("SPACE_ID")))

    @app.middleware("http")
    async def _content_security_policy(request: Request, call_next: Any) -> Response:
        response = await call_next(request)
        for name, value in headers.items():
            response.headers.setdefault(name, value)
        return response

    if access.mode is Mode.USERS:  # the page's login, throttled per user and per address
        app.add_middleware(SignInGuard, throttle=access.throttle)
    if fhir_app is not None:
        app.mount("/fhir", fhir_app)
    app.mount("/api", api)

    def api_store() -> SessionStore | None:
        state = getattr(api.state, "api", None)
        return state.store if state is not None else None

    # the page's conversations live in the API's store, as the tenant "local"
    default_profile = load_profiles(settings.expert_profiles_path).default.name
    handlers = Handlers(
        settings,
        slot.get,
        patients,
        upload_dir,
        access,
        agent_ready=slot.ready,
        record=page_recorder(api_store, default_profile),
        transcript=page_transcript(api_store),
        agent_failure=slot.failure,
    )
    triage = TriageHandlers(triage_slot.get)
    blocks = build_blocks(handlers, settings, triage)
    mounted = gr.mount_gradio_app(
        app,
        blocks,
        path="/",
        allowed_paths=[str(upload_dir)],
        css=CSS,
        footer_links=[],
        max_file_size=settings.max_image_bytes * 2,
        app_kwargs={"openapi_url": None},  # the page's own schema; DocGemma's is above
        run_history=False,  # Gradio would keep charts and answers in the browser's storage
        **access.gradio_kwargs(),
    )
    # Gradio checks that an event's input files were uploaded only once the Blocks count
    # as launched, which mounting never sets (its own reload mode sets it the same way);
    # without it, a client could name any server file as an attachment.
    blocks.has_launched = True
    return mounted


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
    problem = (
        model_problem(settings.model, settings.model_cache_dir)
        if settings.backend == "llamacpp"
        else None
    )
    if problem:  # the page says so too; questions cannot be answered until it is fixed
        log.error("%s", problem)
    serve(create_app(settings), settings)


if __name__ == "__main__":
    main()

"""``create_api``: the HTTP API as a FastAPI app, alone or mounted in the Gradio app.

Request bodies over ``max_request_bytes`` are refused with 413 before they are read
whole; every error is ``{"detail", "code"}`` with a readable message (a malformed JSON
body says where it broke).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docgemma.api import compat, documents, routes
from docgemma.api.auth import KeyRing, presented_key
from docgemma.api.db import open_database
from docgemma.api.models import Health
from docgemma.api.runtime import RuntimeFactory, default_runtime
from docgemma.api.state import ApiError, ApiState
from docgemma.api.store import SessionStore
from docgemma.config import Settings, get_settings
from docgemma.experts import load_profiles

log = logging.getLogger(__name__)


def serve(app: ASGIApp, settings: Settings) -> None:
    """Serve ``app`` (the API alone, or the whole app) at the configured address until it is
    stopped; on a stop, open connections get ``shutdown_grace_s`` before they are closed."""
    import uvicorn

    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level="info",
        timeout_graceful_shutdown=settings.shutdown_grace_s,
    )


def problem(status: int, detail: str, code: str, headers: dict[str, str] | None = None) -> Any:
    return JSONResponse({"detail": detail, "code": code}, status_code=status, headers=headers)


def too_large(limit: int) -> HTTPException:
    return HTTPException(413, f"The request body is larger than {limit} bytes.")


class BodyLimit:
    """413 for a body over the limit: by its Content-Length, or while it streams in."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            error = too_large(self.limit)
            await problem(413, error.detail, "body_too_large")(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise too_large(self.limit)
            return message

        await self.app(scope, limited, send)


def _readable(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
        if error.get("type") == "json_invalid":
            ctx = error.get("ctx") or {}
            parts.append(f"the body is not valid JSON ({ctx.get('error', 'parse error')})")
        else:
            parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "Invalid request: " + "; ".join(parts) + "."


def _install_errors(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> Any:
        return problem(exc.status, exc.detail, exc.code)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> Any:
        codes = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed"}
        code = "body_too_large" if exc.status_code == 413 else codes.get(exc.status_code, "error")
        return problem(exc.status_code, str(exc.detail), code, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> Any:
        return problem(422, _readable(exc), "invalid_request")


def kb_ready(settings: Settings) -> bool | None:
    """The offline literature index: None when none was built in this data folder."""
    folder = Path(settings.data_dir) / "chroma"
    return (folder / "chroma.sqlite3").exists() if folder.exists() else None


def create_api(
    settings: Settings | None = None, runtime: RuntimeFactory = default_runtime
) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = await open_database(settings)
        try:
            async with runtime(settings) as built:
                app.state.api = ApiState(
                    settings=settings,
                    store=SessionStore(db),
                    runtime=built,
                    profiles=load_profiles(settings.expert_profiles_path),
                )
                yield
        finally:
            await db.close()

    docs = {} if settings.api_docs else {"docs_url": None, "redoc_url": None, "openapi_url": None}
    app = FastAPI(
        title="DocGemma API",
        summary="Clinical decision support over HTTP: streamed answers, approvals, sessions.",
        lifespan=lifespan,
        **docs,
    )
    app.state.keys = KeyRing(settings.api_keys)
    app.add_middleware(BodyLimit, limit=settings.max_request_bytes)
    _install_errors(app)
    app.include_router(routes.router)
    app.include_router(documents.router)
    app.include_router(compat.router)

    @app.get("/health", response_model=Health)
    async def health(request: Request) -> Any:
        """Model loaded, FHIR reachable, knowledge base ready (if one exists), database up;
        to a caller without a valid API key only that the server answers."""
        key = presented_key(request)
        if key is None or app.state.keys.tenant(key) is None:
            return JSONResponse({"status": "ok"})
        api: ApiState = request.app.state.api
        try:
            await api.store.db.fetch("SELECT 1 AS ok")
            database = True
        except Exception as exc:  # health reports, never raises
            log.warning("database health probe failed: %s", exc)
            database = False
        model, fhir = api.runtime.model_loaded(), await api.runtime.fhir_reachable()
        engine = api.runtime.model_state()
        kb = kb_ready(settings)
        ok = model and engine == "ok" and fhir and database and kb is not False
        return Health(
            status="ok" if ok else "degraded",
            model_loaded=model,
            model=engine,
            fhir_reachable=fhir,
            kb_ready=kb,
            database=database,
            modes=list(api.runtime.modes),
        )

    return app

"""The embedded FHIR R4 server: a small FastAPI app over the SQLite resource store.

``create_app`` is mounted by the DocGemma app under ``/fhir``; ``serve_in_thread`` runs
it on a real local port for the CLI and the tests, so the EHR client always speaks
real HTTP, exactly as it would to Medplum or HAPI. With a write token, every write
needs it as a bearer token: the app's port may be public (a Space binds 0.0.0.0), and
only the agent, after a clinician's approval, may change the record.
"""

from __future__ import annotations

import json
import logging
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from docgemma.ehr import operations
from docgemma.ehr.errors import FHIRError, operation_outcome
from docgemma.ehr.limits import ServerLimits, json_depth_exceeds
from docgemma.ehr.loader import DEFAULT_BUNDLES, load_bundles
from docgemma.ehr.query import parse_search
from docgemma.ehr.search_params import PARAMS
from docgemma.ehr.store import ResourceStore, now_iso

log = logging.getLogger(__name__)
FHIR_JSON = "application/fhir+json"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class FHIRResponse(JSONResponse):
    media_type = FHIR_JSON


def _error_response(status: int, code: str, diagnostics: str) -> FHIRResponse:
    severity = "error" if status < 500 else "fatal"
    return FHIRResponse(operation_outcome(code, diagnostics, severity), status_code=status)


async def _json_body(request: Request, limits: ServerLimits) -> Any:
    """The body as JSON, read only up to the size limit and refused when nested too deep."""
    too_big = FHIRError(413, "too-costly", f"Bodies are limited to {limits.max_body_bytes} bytes")
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limits.max_body_bytes:
        raise too_big
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limits.max_body_bytes:
            raise too_big
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FHIRError(400, "structure", f"Body is not valid JSON: {exc}") from None
    except RecursionError:
        body = None
    if body is None or json_depth_exceeds(body):
        raise FHIRError(400, "structure", "Body nests too deeply to be a FHIR resource")
    return body


def _written(result: operations.WriteResult) -> FHIRResponse:
    headers = {"Location": result.location, "ETag": f'W/"{result.resource["meta"]["versionId"]}"'}
    return FHIRResponse(result.resource, status_code=result.status, headers=headers)


def _capability() -> dict[str, Any]:
    return {
        "resourceType": "CapabilityStatement",
        "status": "active",
        "date": now_iso(),
        "kind": "instance",
        "fhirVersion": "4.0.1",
        "format": ["json"],
        "rest": [
            {
                "mode": "server",
                "resource": [
                    {
                        "type": rtype,
                        "interaction": [
                            {"code": c} for c in ("read", "search-type", "create", "update")
                        ],
                        "conditionalCreate": True,
                        "searchParam": [{"name": n, "type": p.kind} for n, p in params.items()],
                    }
                    for rtype, params in PARAMS.items()
                ],
                "interaction": [{"code": "transaction"}],
            }
        ],
    }


def _authorized(request: Request, write_token: str) -> bool:
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and secrets.compare_digest(
        credentials.strip().encode(), write_token.encode()
    )


def create_app(
    db_path: str | Path,
    bundles_dir: Path | None = DEFAULT_BUNDLES,
    *,
    write_token: str | None = None,
    limits: ServerLimits | None = None,
    openapi: bool = True,
) -> FastAPI:
    """A FHIR R4 app storing resources in ``db_path``; seeds it from ``bundles_dir`` once.

    With ``write_token``, writes (transactions included) without ``Authorization: Bearer
    <write_token>`` get a 401 OperationOutcome; reads stay open. ``limits`` default to
    the settings'. Every error, unexpected ones included, is an OperationOutcome.
    ``openapi=False`` serves no ``/openapi.json`` (the app's ``DOCGEMMA_API_DOCS``).
    """
    if limits is None:
        from docgemma.config import get_settings

        limits = ServerLimits.from_settings(get_settings())
    store = ResourceStore(db_path)
    if bundles_dir is not None:
        load_bundles(store, bundles_dir, limits)
    app = FastAPI(
        title="DocGemma embedded FHIR R4 server",
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json" if openapi else None,
    )
    app.state.store = store

    if write_token:

        @app.middleware("http")
        async def _require_write_token(request: Request, call_next: Any) -> Any:
            if request.method in WRITE_METHODS and not _authorized(request, write_token):
                log.warning("refused an unauthenticated %s %s", request.method, request.url.path)
                response = _error_response(
                    401, "login", "Writes to this FHIR server need its bearer token"
                )
                response.headers["WWW-Authenticate"] = 'Bearer realm="fhir"'
                return response
            return await call_next(request)

    @app.exception_handler(FHIRError)
    async def _fhir_error(_: Request, exc: FHIRError) -> FHIRResponse:
        return FHIRResponse(exc.outcome(), status_code=exc.status)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> FHIRResponse:
        code = "not-found" if exc.status_code == 404 else "not-supported"
        return _error_response(exc.status_code, code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_: Request, exc: RequestValidationError) -> FHIRResponse:
        return _error_response(400, "invalid", str(exc.errors()[:3]))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> FHIRResponse:
        log.error("FHIR %s %s failed: %r", request.method, request.url.path, exc)
        return _error_response(500, "exception", "The server could not process this request")

    @app.get("/metadata")
    def metadata() -> FHIRResponse:
        return FHIRResponse(_capability())

    @app.post("/")
    async def transaction(request: Request) -> FHIRResponse:
        bundle = await _json_body(request, limits)
        return FHIRResponse(operations.transaction(store, bundle, limits))

    @app.get("/{resource_type}/{resource_id}")
    def read(resource_type: str, resource_id: str) -> FHIRResponse:
        operations.check_type(resource_type)
        operations.check_id(resource_id)
        resource = store.read(resource_type, resource_id)
        if resource is None:
            raise FHIRError(404, "not-found", f"{resource_type}/{resource_id} is not known")
        return FHIRResponse(resource, headers={"ETag": f'W/"{resource["meta"]["versionId"]}"'})

    @app.get("/{resource_type}")
    def search(resource_type: str, request: Request) -> FHIRResponse:
        operations.check_type(resource_type)
        query = parse_search(resource_type, request.query_params.multi_items(), limits)
        total, resources = store.search(
            resource_type, query.clauses, sort=query.sort, count=query.count, offset=query.offset
        )
        base = str(request.url.replace(query=""))[: -len(resource_type) - 1]
        bundle: dict[str, Any] = {
            "resourceType": "Bundle",
            "type": "searchset",
            "total": total,
            "link": [{"relation": "self", "url": str(request.url)}],
            "entry": [
                {
                    "fullUrl": f"{base}/{r['resourceType']}/{r['id']}",
                    "resource": r,
                    "search": {"mode": "match"},
                }
                for r in resources
            ],
        }
        if query.count and query.offset + len(resources) < total:
            next_url = request.url.include_query_params(_offset=query.offset + len(resources))
            bundle["link"].append({"relation": "next", "url": str(next_url)})
        return FHIRResponse(bundle)

    @app.post("/{resource_type}")
    async def create(resource_type: str, request: Request) -> FHIRResponse:
        operations.check_type(resource_type)
        body = await _json_body(request, limits)
        result = operations.create(
            store, body, resource_type, limits, request.headers.get("if-none-exist")
        )
        return _written(result)

    @app.put("/{resource_type}/{resource_id}")
    async def update(resource_type: str, resource_id: str, request: Request) -> FHIRResponse:
        operations.check_type(resource_type)
        body = await _json_body(request, limits)
        return _written(operations.update(store, body, resource_type, resource_id))

    return app


@contextmanager
def serve_app(app: Any, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Run any ASGI app with uvicorn in a background thread; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound_port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="fhir-server"
    )
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("The embedded HTTP server failed to start")
            time.sleep(0.01)
        yield f"http://{host}:{bound_port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextmanager
def serve_in_thread(
    db_path: str | Path,
    host: str = "127.0.0.1",
    port: int = 0,
    bundles_dir: Path | None = DEFAULT_BUNDLES,
    write_token: str | None = None,
) -> Iterator[str]:
    """Run the FHIR server, seeded from ``bundles_dir``, in a background thread; yields its URL."""
    app = create_app(db_path, bundles_dir, write_token=write_token)
    with serve_app(app, host, port) as url:
        log.info("Embedded FHIR server listening on %s", url)
        yield url


def main(argv: list[str] | None = None) -> None:
    """Serve the embedded EHR on its own: ``python -m docgemma.ehr.server --port 8080``."""
    import argparse

    from docgemma.config import get_settings

    settings = get_settings()
    parser = argparse.ArgumentParser(description="DocGemma embedded FHIR R4 server")
    parser.add_argument(
        "--db", type=Path, default=None, help=f"SQLite file; default: {settings.embedded_fhir_db}"
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument(
        "--write-token",
        default=None,
        help="Bearer token required for writes; default: DOCGEMMA_FHIR_TOKEN (none: open writes)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    db = args.db or settings.embedded_fhir_db
    app = create_app(db, write_token=args.write_token or settings.fhir_token)
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")


if __name__ == "__main__":
    main()

"""Fixtures shared by the whole suite.

The real embedded models are loaded once per session: ``real_llm`` is the fast Gemma
3 270M for tests whose subject is the pipeline, ``default_llm`` the app's default
profile for tests whose subject is the answer. Tests that use either are marked
``real_model`` so they can be selected or deselected, never hidden.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fhir_server import embedded_fhir
from langgraph.checkpoint.serde.event_hooks import register_serde_event_listener
from prebuilt_indexes import seed_indexes
from repo_guard import OPENED_OUTSIDE, guarded_zone, refuse_reads_beside_the_repo

from docgemma.config import Settings, get_settings


def pytest_configure(config: pytest.Config) -> None:
    sys.addaudithook(refuse_reads_beside_the_repo(*guarded_zone()))


SERVER_FIXTURES = frozenset(
    {"make_server", "real_api_server", "llama_server", "postgres_url", "live", "live_app_with"}
)
"""Fixtures that start a process or serve the whole app: the API under uvicorn
(tests/api), llama.cpp's OpenAI server (tests/llm), a throwaway PostgreSQL cluster, and
the app served over HTTP for the security tests (tests/security). A test using one,
directly or through another fixture, is marked ``server``."""
REAL_MODEL_FIXTURES = frozenset({"real_llm", "default_llm", "real_url", "real_api_server"})
"""Fixtures that load a real GGUF model, in this process or in the server they start
(``real_url``: the app, tests/ui/conftest.py; ``real_api_server``: the API,
tests/api/conftest.py): a test using one is marked ``real_model``."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark tests by the fixtures they use, so ``make check``'s unit tier
    (``-m "not real_model and not browser and not network and not server"``) cannot pull in
    a process or a model through a fixture whose test forgot its marker."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & SERVER_FIXTURES:
            item.add_marker(pytest.mark.server)
        if used & REAL_MODEL_FIXTURES:
            item.add_marker(pytest.mark.real_model)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if OPENED_OUTSIDE:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def checkpoints_revive_every_state_type() -> Iterator[None]:
    """A checkpoint read back must bring back every value the state held: a class missing
    from ``docgemma.checkpoint_serde.STATE_TYPES`` would come back as a bare value.
    (Classes defined in test modules are smuggled on purpose.)"""
    blocked: list[str] = []

    def listen(event: dict) -> None:
        if event["kind"] == "msgpack_blocked" and not event["module"].startswith("test_"):
            blocked.append(f"{event['module']}.{event['name']}")

    remove = register_serde_event_listener(listen)  # type: ignore[arg-type]
    yield
    remove()
    assert not blocked, f"checkpoint types not in STATE_TYPES: {sorted(set(blocked))}"


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """Settings isolated from the developer's environment, with a temporary data folder."""
    for key in list(os.environ):
        if key.startswith("DOCGEMMA_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("DOCGEMMA_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("DOCGEMMA_OFFLINE", "true")
    # the suite's shared real model (``real_llm``) is the tiny one: settings must describe it,
    # or per-profile choices (e.g. tool selection by the LLM) would be made for another model
    monkeypatch.setenv("DOCGEMMA_MODEL", "gemma3-270m")
    get_settings.cache_clear()
    yield get_settings()
    get_settings.cache_clear()


@pytest.fixture
def indexed_settings(settings: Settings) -> Settings:
    """``settings`` whose data folder starts with the offline indexes built, as ``make app``
    leaves them (a copy of the ones built once per test process): for tests that search the
    knowledge base or the literature index without testing how they are built."""
    seed_indexes(settings.data_dir)
    return settings


fhir_url = embedded_fhir("session", external=True)
"""The FHIR server of the suite (or DOCGEMMA_FHIR_URL's); folders needing isolation override it."""


@pytest.fixture
def fhir(fhir_url: str) -> Iterator[httpx.Client]:
    """A plain HTTP client on ``fhir_url``: how tests see what the server holds."""
    with httpx.Client(
        base_url=fhir_url, timeout=30, headers={"Accept": "application/fhir+json"}
    ) as http:
        yield http


@pytest.fixture(scope="session")
def real_llm():
    """The real embedded backend: llama.cpp running Gemma 3 270M from the PyPI package."""
    from docgemma.assets import model_file
    from docgemma.llm.llamacpp import LlamaCppBackend

    backend = LlamaCppBackend(model_file("gemma3-270m"), n_ctx=4096, seed=0)
    yield backend
    backend._llm.close()


@pytest.fixture(scope="session")
def default_llm():
    """The app's default embedded profile (Qwen2.5 1.5B Instruct), built as the app builds it:
    in its own engine process."""
    from docgemma.llm.registry import create_backend
    from docgemma.profiles import DEFAULT_PROFILE

    backend = create_backend(Settings(backend="llamacpp", model=DEFAULT_PROFILE))
    yield backend
    asyncio.run(backend.aclose())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``python -m llama_cpp.server`` on the embedded GGUF; yields its ``/v1`` base URL."""
    from docgemma.assets import model_file

    port = _free_port()
    log_path = tmp_path_factory.mktemp("llama_server") / "server.log"
    log = log_path.open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model_file("gemma3-270m")),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
            "--chat_format",
            "gemma",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
            try:
                if httpx.get(f"{base_url}/models", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama_cpp.server did not start within 60 s")
            time.sleep(0.3)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()

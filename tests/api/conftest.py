"""Real API server processes (uvicorn on 127.0.0.1), a real FHIR server, and PostgreSQL.

``api_server`` starts ``tests.api.scripted_app`` in a subprocess: the real stack on a
scripted model, its EHR the FHIR server this test process runs (so writes are counted
over HTTP). ``postgres_url`` starts a throwaway PostgreSQL cluster (Debian's
``postgresql`` package) in a temporary folder, as the ``postgres`` user when run as root.
"""

from __future__ import annotations

import glob
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fhir_server import embedded_fhir

from docgemma.api.auth import hash_key

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
KEYS = {"clinic-a": "key-a-" + "x" * 20, "clinic-b": "key-b-" + "y" * 20, "clinic-c": "key-c-z"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """One API process; ``start`` again after ``kill`` reuses its data and port."""

    env: dict[str, str]
    port: int
    app: str
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    starts: list[float] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 300.0) -> Server:
        return self.launch().wait_until_up(timeout)

    def launch(self) -> Server:
        """Start the process without waiting for it (``start_together`` overlaps start-ups)."""
        cmd = [sys.executable, "-m", "uvicorn", "--factory", self.app, "--app-dir", str(HERE)]
        cmd += ["--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=log, stderr=log)
        return self

    def wait_until_up(self, timeout: float = 300.0) -> Server:
        assert self.proc is not None, "launch() first"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"API server exited:\n{self.log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    self.starts.append(time.monotonic())
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"API server did not start:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


def start_together(*servers: Server, timeout: float = 300.0) -> tuple[Server, ...]:
    """Launch every server, then wait for each: their start-ups (imports, a model load)
    overlap instead of queueing, which matters most on a model backend."""
    for server in servers:
        server.launch()
    return tuple(server.wait_until_up(timeout) for server in servers)


FHIR_TOKEN = secrets.token_urlsafe(16)
api_fhir_url = embedded_fhir("module", write_token=FHIR_TOKEN)


@pytest.fixture(scope="module")
def fhir_server(api_fhir_url: str) -> tuple[str, str]:
    """The embedded FHIR server in this process, guarded as in the app: (url, write token)."""
    return api_fhir_url, FHIR_TOKEN


def new_server(
    fhir: tuple[str, str],
    folder: Path,
    data_dir: Path | None = None,
    app: str = "scripted_app:create",
    **env: str,
) -> Server:
    """An API process (not started) on ``fhir``, its data and log in ``folder``."""
    url, token = fhir
    number = len(list(folder.glob("server-*.log")))
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DOCGEMMA_")}
    full = {
        **clean,
        "PYTHONPATH": str(ROOT),  # this checkout's docgemma, not the installed one
        "DOCGEMMA_DATA_DIR": str(data_dir or folder / f"var-{number}"),
        "DOCGEMMA_BACKEND": "scripted",
        "DOCGEMMA_SERVED_ANSWERS_FROM_MEMORY": "true",  # scripted_app's direct answers
        "DOCGEMMA_OFFLINE": "true",
        "DOCGEMMA_FHIR_URL": url,
        "DOCGEMMA_FHIR_TOKEN": token,
        "DOCGEMMA_API_KEYS": json.dumps({hash_key(k): t for t, k in KEYS.items()}),
        "DOCGEMMA_MAX_REQUEST_BYTES": "4096",
        **env,
    }
    log = folder / f"server-{number}.log"
    log.touch()
    return Server(full, free_port(), app, log)


@pytest.fixture(scope="module")
def make_server(
    tmp_path_factory: pytest.TempPathFactory, fhir_server: tuple[str, str]
) -> Iterator[Callable[..., Server]]:
    """Servers for one test module (starting one costs seconds: they are shared)."""
    made: list[Server] = []
    tmp_path = tmp_path_factory.mktemp("api")

    def make(data_dir: Path | None = None, app: str = "scripted_app:create", **env: str) -> Server:
        server = new_server(fhir_server, tmp_path, data_dir, app, **env)
        made.append(server)
        return server

    yield make
    for server in made:
        server.stop()


real_api_fhir_url = embedded_fhir("session", write_token=FHIR_TOKEN)


@pytest.fixture(scope="session")
def real_api_fhir(real_api_fhir_url: str) -> tuple[str, str]:
    """The FHIR server behind ``real_api_server``: (url, write token)."""
    return real_api_fhir_url, FHIR_TOKEN


@pytest.fixture(scope="session")
def real_api_server(
    tmp_path_factory: pytest.TempPathFactory, real_api_fhir: tuple[str, str]
) -> Iterator[Server]:
    """The API as shipped (``create_api``) on the real tiny model, started once per session:
    its start-up (model load, classifier training) takes minutes on a busy 2-core machine.
    Tests on it use sessions of their own; one that kills its engine waits until it is back."""
    server = new_server(
        real_api_fhir,
        tmp_path_factory.mktemp("real-api"),
        app="docgemma.api.app:create_api",
        DOCGEMMA_BACKEND="llamacpp",
        DOCGEMMA_MODEL="gemma3-270m",
    )
    try:
        yield server.start(timeout=900)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def server(make_server: Callable[..., Server]) -> Server:
    return make_server().start()


def medication_requests(fhir: tuple[str, str], patient: str) -> list[dict[str, Any]]:
    reply = httpx.get(
        f"{fhir[0]}/MedicationRequest", params={"patient": patient, "_count": "200"}, timeout=30
    )
    reply.raise_for_status()
    return [e["resource"] for e in reply.json().get("entry", [])]


def _postgres_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on a free port; skipped only if PostgreSQL is absent."""
    initdb, pg_ctl = _postgres_bin("initdb"), _postgres_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip(
            "PostgreSQL binaries (initdb, pg_ctl) are not installed: apt-get install postgresql"
        )
    folder = Path(tempfile.mkdtemp(prefix="docgemma-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        shutil.chown(folder, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", free_port()
    run = lambda *cmd: subprocess.run([*as_user, *cmd], check=True, capture_output=True)  # noqa: E731
    run(initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    run(pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], check=False)
        shutil.rmtree(folder, ignore_errors=True)

"""``python app.py`` stops promptly while a browser tab is open.

Every open page holds an event stream to the app (Gradio's heartbeat) that never ends on
its own. The app gives open connections ``shutdown_grace_s`` to finish on a stop, then
closes them and runs its own shutdown (the model engine, the record server, the memory);
without that limit a stop (Ctrl-C, a container's SIGTERM) waits for every tab to close.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from prebuilt_indexes import seed_indexes

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _hold_open(url: str, opened: threading.Event) -> None:
    """A browser tab's heartbeat stream, read until the server closes it."""
    try:
        with httpx.stream("GET", url, timeout=httpx.Timeout(5, read=None)) as reply:
            opened.set()
            for _ in reply.iter_bytes():
                pass
    except httpx.HTTPError:
        pass


@pytest.mark.server
def test_a_stop_with_a_tab_open_finishes_within_the_grace(tmp_path) -> None:
    seed_indexes(tmp_path / "var")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCGEMMA_", "GRADIO_"))}
    env |= {
        "DOCGEMMA_DATA_DIR": str(tmp_path / "var"),
        "DOCGEMMA_OFFLINE": "true",
        "DOCGEMMA_MODEL": "gemma3-270m",
        "DOCGEMMA_SHUTDOWN_GRACE_S": "1",
        "GRADIO_SERVER_PORT": str(port),
    }
    log = tmp_path / "app.log"
    with log.open("wb") as out:
        app = subprocess.Popen(
            [sys.executable, "app.py"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 180
        while True:
            assert app.poll() is None, log.read_text()[-3000:]
            try:
                if httpx.get(url, timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.3)
        opened = threading.Event()
        tab = threading.Thread(
            target=_hold_open, args=(f"{url}/gradio_api/heartbeat/tab1", opened), daemon=True
        )
        tab.start()
        assert opened.wait(30), "the heartbeat stream did not open"

        asked = time.monotonic()
        app.send_signal(signal.SIGTERM)
        try:
            code = app.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running 60 s after the stop:\n{log.read_text()[-3000:]}")
        took = time.monotonic() - asked
        assert code in (0, -signal.SIGTERM), log.read_text()[-3000:]  # uvicorn re-raises it
        assert took < 30, f"the stop took {took:.0f} s"
        assert "Application shutdown complete" in log.read_text()  # its own shutdown ran
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()

"""Running the whole app (Gradio + embedded FHIR) on a free local port for browser tests."""

from __future__ import annotations

import importlib.util
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from prebuilt_indexes import seed_indexes

from docgemma.config import Settings

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "tests" / "artifacts"
SHOT_TIMEOUT_MS = 15_000


def load_app_module() -> Any:
    spec = importlib.util.spec_from_file_location("docgemma_app", ROOT / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def running_app(
    data_dir: Path, agent_factory: Any = None, triage_factory: Any = None, **overrides: Any
) -> Iterator[str]:
    """Serve ``app.create_app`` with uvicorn in a thread; yields the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    seed_indexes(data_dir)
    # a browser tab's event stream stays open: a short grace, or every stop waits for it
    overrides = {"shutdown_grace_s": 1.0, **overrides}
    settings = Settings(data_dir=data_dir, host="127.0.0.1", port=port, offline=True, **overrides)
    app_module = load_app_module()
    kwargs = {"agent_factory": agent_factory} if agent_factory is not None else {}
    if triage_factory is not None:
        kwargs["triage_factory"] = triage_factory
    server = uvicorn.Server(
        uvicorn.Config(
            app_module.create_app(settings, **kwargs),
            log_level="warning",
            timeout_graceful_shutdown=settings.shutdown_grace_s,
        )
    )
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="docgemma-app"
    )
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the app did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


@contextmanager
def chromium_tab(url: str) -> Iterator[Any]:
    """Debian's headless Chromium with the page at ``url`` loaded; yields the Playwright page."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            tab = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            tab.goto(url)
            tab.wait_for_selector("#msg textarea", timeout=60_000)
            yield tab
        finally:
            browser.close()


def settle(page: Any, quiet_ms: int = 750) -> None:
    """Wait until no component shows Gradio's progress overlay (chained events done)."""
    page.evaluate("window.__idleSince = null")
    page.wait_for_function(
        f"""() => {{
            if (document.querySelector('.progress-text')) {{
                window.__idleSince = null;
                return false;
            }}
            window.__idleSince ??= Date.now();
            return Date.now() - window.__idleSince > {quiet_ms};
        }}""",
        timeout=60_000,
    )


def shot(page, name):
    """A picture of the page for the run's artefacts; None when the browser is too busy to
    take one in time (a picture is a record for people, never what a test checks)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    try:
        page.screenshot(path=str(path), full_page=True, timeout=SHOT_TIMEOUT_MS)
    except PlaywrightTimeout:
        warnings.warn(f"no screenshot {name}: the page did not paint in time", stacklevel=2)
        return None
    return path


_OPENED: list[Any] = []
"""Browser contexts the current test opened (``new_tab``), closed after it."""


def new_tab(browser: Any, height: int = 1000) -> Any:
    """A page in a context of its own, closed when the test ends (``close_pages``)."""
    context = browser.new_context(viewport={"width": 1400, "height": height})
    _OPENED.append(context)
    return context.new_page()


@pytest.fixture(autouse=True)
def close_pages() -> Iterator[None]:
    """Close each test's pages when it ends: a page left open keeps its renderer busy (a
    spinner, a stream) and takes CPU from the real model the later tests run on. Active in
    each test module that imports it."""
    yield
    while _OPENED:
        _OPENED.pop().close()

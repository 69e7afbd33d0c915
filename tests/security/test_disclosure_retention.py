"""SECURITY.md item 11: the page shows no internals, API docs are off, PHI does not linger.

Against the live app: ``/docs``, ``/redoc`` and ``/openapi.json`` answer 404 unless
``DOCGEMMA_API_DOCS`` is on; the page's configuration carries neither the data
folder nor the EHR's URL; images past ``upload_retention_hours`` and conversations
idle past ``checkpoint_retention_days`` are gone after a start.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import httpx
from conftest import METFORMIN, Page, proposal

from docgemma.llm.scripted import ScriptedBackend


def test_no_api_docs_and_no_internals_on_the_page(live, tmp_path: Path) -> None:
    with live(ScriptedBackend()) as url:
        for path in ("/docs", "/redoc", "/openapi.json"):
            assert httpx.get(f"{url}{path}").status_code == 404, path
        page = httpx.get(f"{url}/config").text
        assert "built-in demonstration record" in page  # the settings panel is there …
        assert str((tmp_path / "var").resolve()) not in page  # … without the data folder
        assert f"{url}/fhir" not in page and "data=" not in page
    with live(ScriptedBackend(), api_docs=True) as url:
        assert httpx.get(f"{url}/openapi.json").json()["info"]["title"] == "DocGemma"


def thread_count(data_dir: Path) -> int:
    with sqlite3.connect(data_dir / "checkpoints.sqlite") as db:
        return db.execute("SELECT COUNT(DISTINCT thread_id) FROM checkpoints").fetchone()[0]


def test_old_images_and_idle_conversations_are_deleted_at_start(live, tmp_path: Path) -> None:
    data = tmp_path / "var"
    with live(ScriptedBackend(proposal(METFORMIN))) as url:
        Page(url).say("Prescribe metformin 500 mg twice daily for abc-123")
    assert thread_count(data) == 1  # the pending approval is remembered …

    uploads = data / "uploads"
    uploads.mkdir(parents=True, exist_ok=True)
    old, fresh = uploads / "old-scan.png", uploads / "fresh-scan.png"
    for path in (old, fresh):
        path.write_bytes(b"\x89PNG\r\n\x1a\n")
    two_days_ago = time.time() - 2 * 86400
    os.utime(old, (two_days_ago, two_days_ago))

    # … until it has been idle longer than the retention (here: a few milliseconds).
    time.sleep(0.2)
    with live(ScriptedBackend(), checkpoint_retention_days=1e-6) as url:
        deadline = time.monotonic() + 120
        while (thread_count(data) or old.exists()) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert thread_count(data) == 0
        assert not old.exists() and fresh.exists()  # 24 h by default: today's image stays
        assert Page(url).card().markdown == ""

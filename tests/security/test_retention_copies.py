"""What is deleted stays deleted: the page's API copies and the conversation downloads.

The old gaps: every page turn was copied into ``api.sqlite`` (tenant ``local``) even
with no API key configured, and the retention job never deleted those copies; each
download left a ``docgemma-export-*`` folder in the system temporary folder for good.
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from pathlib import Path

import httpx
from conftest import Page
from gradio_http import run

from docgemma.api.auth import hash_key
from docgemma.llm.scripted import ScriptedBackend
from docgemma.ui import conversation_tools

DIRECT = [{"intent": "DIRECT", "task_summary": "define", "suggested_tool": None}]
NOTHING_CITED = {"statements": []}
"""A passage found for the question answers nothing: the answer is the decline."""


def scripted() -> ScriptedBackend:
    return ScriptedBackend([*DIRECT, NOTHING_CITED] * 3)


def api_sessions(data: Path) -> list[tuple[str, float]]:
    db = data / "api.sqlite"
    if not db.exists():
        return []
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT tenant, updated_at FROM api_sessions").fetchall()


def test_without_a_local_key_page_turns_are_not_copied(live, tmp_path: Path) -> None:
    with live(scripted()) as url:
        Page(url).say("What is hypertension?")
    assert api_sessions(tmp_path / "var") == []


def test_the_copies_are_deleted_with_the_conversations_retention(live, tmp_path: Path) -> None:
    keys = {hash_key("local-key-" + "l" * 20): "local"}
    with live(scripted(), api_keys=keys) as url:
        Page(url).say("What is hypertension?")
    data = tmp_path / "var"
    assert [tenant for tenant, _ in api_sessions(data)] == ["local"]
    with sqlite3.connect(data / "api.sqlite") as conn:  # idle for 60 days
        conn.execute("UPDATE api_sessions SET updated_at = ?", (time.time() - 60 * 86400,))
    with live(scripted(), api_keys=keys):  # retention runs at start-up
        deadline = time.monotonic() + 120
        while api_sessions(data) and time.monotonic() < deadline:
            time.sleep(0.5)
    assert api_sessions(data) == []


def exports() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("docgemma-export-*"))


def test_a_download_leaves_no_file_behind(live, monkeypatch) -> None:
    monkeypatch.setattr(conversation_tools, "EXPORT_GRACE_S", 1.0)
    with live(scripted()) as url:
        page = Page(url)
        page.say("What is hypertension?")
        config = page._config()
        [button] = [
            c["id"] for c in config["components"] if c["props"].get("elem_id") == "export-md"
        ]
        [event] = [d for d in config["dependencies"] if [button, "click"] in d["targets"]]
        before = exports()
        out = run(url, event["id"], [None], page.session_hash)["data"][0]
        served = httpx.get(f"{url}/gradio_api/file={out['path']}", timeout=30)
        assert "What is hypertension?" in served.text  # the clinician gets the file
        deadline = time.monotonic() + 10
        while exports() - before and time.monotonic() < deadline:
            time.sleep(0.2)
        assert exports() - before == set()

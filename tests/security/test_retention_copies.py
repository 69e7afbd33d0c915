"""What is deleted stays deleted: the page's stored conversations and their downloads.

The page keeps its conversations in the API's store (``api.sqlite``, tenant ``local``),
where its download reads them. No API caller reads them unless a key is mapped to
``local``, and the retention job deletes them with the agent's memory. The old gaps: the
retention job never deleted the page's stored turns, and each download left a
``docgemma-export-*`` folder in the system temporary folder for good.
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


def test_without_a_local_key_no_api_caller_reads_the_pages_conversations(
    live, tmp_path: Path
) -> None:
    key = "clinic-key-" + "c" * 20
    with live(scripted(), api_keys={hash_key(key): "clinic-b"}) as url:
        Page(url).say("What is hypertension?")
        listed = httpx.get(
            f"{url}/api/v1/sessions", headers={"Authorization": f"Bearer {key}"}, timeout=30
        )
        assert listed.status_code == 200 and listed.json() == []
    assert [tenant for tenant, _ in api_sessions(tmp_path / "var")] == ["local"]


def test_the_pages_conversations_are_deleted_with_their_retention(live, tmp_path: Path) -> None:
    with live(scripted()) as url:
        Page(url).say("What is hypertension?")
    data = tmp_path / "var"
    assert [tenant for tenant, _ in api_sessions(data)] == ["local"]
    with sqlite3.connect(data / "api.sqlite") as conn:  # idle for 60 days
        conn.execute("UPDATE api_sessions SET updated_at = ?", (time.time() - 60 * 86400,))
    with live(scripted()):  # retention runs at start-up
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

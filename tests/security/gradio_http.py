"""Gradio's own HTTP protocol, spoken directly: what any client (or attacker) can send.

``call`` joins the queue for one event of the page, as the browser does, and returns
the event's final outputs; ``upload`` puts a file into Gradio's upload folder.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import httpx

API = "/gradio_api"


class EventFailed(RuntimeError):
    """The app refused the event; ``str(error)`` is the message the page would show."""


def fn_index(url: str, api_name: str) -> int:
    deps = httpx.get(f"{url}/config", timeout=30).json()["dependencies"]
    return next(i for i, d in enumerate(deps) if d.get("api_name") == api_name)


def call(url: str, api_name: str, data: list[Any], session_hash: str | None = None) -> list[Any]:
    """Run one event to its end; the outputs of its last update (raises on an app error)."""
    return run(url, fn_index(url, api_name), data, session_hash).get("data", [])


def run(
    url: str,
    fn: int,
    data: list[Any],
    session_hash: str | None = None,
    cookies: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Run event ``fn`` (also one a render added to the session) to its end; its whole output,
    e.g. ``render_config`` for a render (raises on an app error)."""
    session_hash = session_hash or secrets.token_hex(8)
    with httpx.Client(base_url=url, timeout=120, cookies=cookies) as http:
        http.post(
            f"{API}/queue/join",
            json={
                "data": data,
                "fn_index": fn,
                "session_hash": session_hash,
                "event_data": None,
                "trigger_id": None,
            },
        ).raise_for_status()
        with http.stream("GET", f"{API}/queue/data", params={"session_hash": session_hash}) as r:
            for line in r.iter_lines():
                if not line.startswith("data:"):
                    continue
                msg = json.loads(line[5:])
                if msg.get("msg") == "process_completed":
                    output = msg.get("output") or {}
                    if not msg.get("success", False):
                        raise EventFailed(str(output.get("error")))
                    return output
    raise RuntimeError("the event stream ended without a result")


def upload(url: str, path: Path) -> str:
    """Upload a file the way the browser does; returns the server-side path Gradio chose."""
    with path.open("rb") as fh:
        reply = httpx.post(f"{url}{API}/upload", files={"files": (path.name, fh)}, timeout=60)
    reply.raise_for_status()
    return reply.json()[0]


def file_data(path: str) -> dict[str, Any]:
    """A MultimodalTextbox file entry naming ``path``, as the client sends it."""
    return {"path": path, "orig_name": Path(path).name, "meta": {"_type": "gradio.FileData"}}

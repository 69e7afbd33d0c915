"""Gradio's run history is off: no chart, prescription or answer is kept in the browser.

Gradio 6 records every event's inputs and outputs in the browser's localStorage by
default and shows them at ``/gradio_api/runs``; for this page that would keep patient
data on any machine the page was opened on. The app turns it off for every event.
"""

from __future__ import annotations

import httpx
from conftest import Page

from docgemma.llm.scripted import ScriptedBackend


def test_no_event_is_recorded_in_the_browser(live) -> None:
    with live(ScriptedBackend([])) as url:
        page = Page(url)
        config = page._config()
        assert config.get("run_history") is False  # the page's script records nothing
        assert "runs" not in (config.get("footer_links") or [])
        assert httpx.get(f"{url}/gradio_api/runs", timeout=30).status_code == 404

"""A page message over 20,000 characters is refused with a notice, like the API's.

The old attack: a 20 MB chat message was accepted, sent to the agent and stored in
full. Now the chat and the triage tab refuse a message over the API's limit whole:
nothing reaches the agent or the history, and the text stays in its box to shorten.
"""

from __future__ import annotations

from conftest import Page
from gradio_http import run

from docgemma.transcript import MAX_MESSAGE_CHARS

LONG = "Please summarise. " + "a" * MAX_MESSAGE_CHARS


def test_an_over_long_chat_message_is_refused_with_a_notice(live_app_with, agent) -> None:
    url = live_app_with()
    page = Page(url)
    calls = len(agent.calls)
    history, _box, error = page.client.predict({"text": LONG, "files": []}, api_name="/submit")
    assert history == []
    assert "the limit is 20,000" in str(error) and "nothing was sent" in str(error)
    assert len(agent.calls) == calls  # the agent got nothing
    history, _, _ = page.client.predict({"text": "a" * 50, "files": []}, api_name="/submit")
    assert len(agent.calls) == calls + 1  # a message under the limit still goes through


def test_an_over_long_triage_message_is_refused(live_app_with) -> None:
    url = live_app_with()
    page = Page(url)
    config = page._config()
    ids = {c["props"].get("elem_id"): c["id"] for c in config["components"]}
    [send] = [d for d in config["dependencies"] if [ids["triage-send"], "click"] in d["targets"]]
    out = run(url, send["id"], [LONG, "Not given", "Not given", False, None], page.session_hash)
    shown = dict(zip(send["outputs"], out["data"], strict=False))
    assert "the limit is 20,000" in str(shown[ids["triage-sources"]])
    assert LONG not in str(out["data"])  # neither stored nor echoed

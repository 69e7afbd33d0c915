"""Every page event that reads or changes a conversation checks its owner first.

Gradio takes any session hash a client presents. A second signed-in user who presents
another user's hash used to be able to download that user's conversation (Markdown and
JSON), read and continue their triage conversation, switch their expert profile, and
replay the session's load event (``/new_session``) to wipe their tab and take it over.
The structural test lists every event the Blocks register and fails on any that takes
or sets a conversation without going through ``owner_only``; the attack tests replay
each of the old attacks over real HTTP.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr
import httpx
import pytest
from conftest import METFORMIN, PASSWORDS, PATIENT, Page, fhir_search, proposal, texts
from gradio_http import EventFailed, run
from live_app import load_app_module

from docgemma.config import Settings
from docgemma.llm.scripted import ScriptedBackend
from docgemma.ui.ownership import OWNER_CHECKED, Owned
from docgemma.ui.session import FOREIGN

LEE = ("dr.lee", PASSWORDS["dr.lee"])
MALLORY = ("mallory", PASSWORDS["mallory"])


def _conversation_state(block: Any) -> bool:
    if not isinstance(block, gr.State):
        return False
    value = block.value
    return isinstance(value, Owned) or callable(value) and not isinstance(value, type)


def _handler(dep: Any) -> Any:
    renderable = getattr(dep, "renderable", None)
    return renderable.fn if renderable is not None else dep.fn


def test_every_event_touching_a_conversation_checks_its_owner(tmp_path: Path) -> None:
    """A new event that reads or changes a session without the check fails here."""
    hashes = {"dr.lee": "scrypt$16384$8$1$AAAA$AAAA"}
    settings = Settings(data_dir=tmp_path, offline=True, auth_users=hashes)
    app = load_app_module().create_app(settings, agent_factory=lambda s, e: None)
    blocks = next(r.app.get_blocks() for r in app.routes if hasattr(r.app, "get_blocks"))
    touching = [
        dep
        for dep in blocks.fns.values()
        if any(_conversation_state(b) for b in [*dep.inputs, *dep.outputs])
    ]
    assert len(touching) >= 15  # chat, approval, panels, patient, settings, downloads, triage
    unchecked = [
        dep.name or getattr(_handler(dep), "__qualname__", repr(_handler(dep)))
        for dep in touching
        if not getattr(_handler(dep), OWNER_CHECKED, False)
    ]
    assert unchecked == []
    states = [b for b in blocks.blocks.values() if isinstance(b, gr.State)]
    assert states and all(not callable(s.value) for s in states)  # no load event to replay


def _deps(url: str, auth: tuple[str, str]) -> tuple[dict[str, Any], dict[str, int]]:
    page = Page(url, auth=auth)
    config = page._config()
    ids = {
        c["props"]["elem_id"]: c["id"]
        for c in config["components"]
        if c.get("props", {}).get("elem_id")
    }
    return config, ids


def _event(config: dict[str, Any], component: int, trigger: str) -> dict[str, Any]:
    [dep] = [d for d in config["dependencies"] if [component, trigger] in d["targets"]]
    return dep


def test_another_user_cannot_download_switch_profile_or_wipe_a_session(
    live, user_hashes, tmp_path: Path
) -> None:
    llm = ScriptedBackend([*proposal(METFORMIN)])
    with live(llm, auth_users=user_hashes) as url:
        lee = Page(url, auth=LEE)
        lee.say("Prescribe metformin 500 mg twice daily for abc-123 SECRET-WORD")
        card = lee.card()
        assert "metformin" in card.markdown
        config, ids = _deps(url, LEE)
        mallory = Page(url, auth=MALLORY, session_hash=lee.session_hash)
        cookies = mallory.client.cookies

        for button in ("export-md", "export-json"):
            dep = _event(config, ids[button], "click")
            with pytest.raises(EventFailed, match="another signed-in user"):
                run(url, dep["id"], [None], lee.session_hash, cookies)

        profile = _event(config, ids["profile-select"], "change")
        run(url, profile["id"], ["pharmacist", None], lee.session_hash, cookies)
        assert not [d for d in config["dependencies"] if d.get("api_name") == "new_session"]

        # the owner's card and download are still theirs, and Approve still writes
        own = _event(config, ids["export-md"], "click")
        out = run(url, own["id"], [None], lee.session_hash, lee.client.cookies)["data"][0]
        served = httpx.get(
            f"{url}/gradio_api/file={out['path']}", cookies=lee.client.cookies, timeout=30
        )
        assert "SECRET-WORD" in served.text
        before = fhir_search(url, "MedicationRequest", auth=LEE, patient=PATIENT)
        history, _ = lee.approve(card.key, card.fields)
        assert "Prescription saved to the record of" in texts(history)
        after = fhir_search(url, "MedicationRequest", auth=LEE, patient=PATIENT)
        assert len(after) == len(before) + 1


def test_the_owner_switching_profile_keeps_the_pending_write(live) -> None:
    llm = ScriptedBackend([*proposal(METFORMIN)])
    with live(llm) as url:
        page = Page(url)
        page.say("Prescribe metformin 500 mg twice daily for abc-123")
        card = page.card()
        config = page._config()
        ids = {
            c["props"]["elem_id"]: c["id"]
            for c in config["components"]
            if c.get("props", {}).get("elem_id")
        }
        profile = _event(config, ids["profile-select"], "change")
        run(url, profile["id"], ["pharmacist", None], page.session_hash)
        history, message = page.approve(card.key, card.fields)
        assert message == ""
        assert "Prescription saved to the record of" in texts(history)


def test_another_user_cannot_read_or_continue_a_triage_conversation(live, user_hashes) -> None:
    llm = ScriptedBackend([])
    with live(llm, auth_users=user_hashes) as url:
        config, ids = _deps(url, LEE)
        send = _event(config, ids["triage-send"], "click")
        lee = Page(url, auth=LEE)
        data = ["I have a sore throat SECRET-WORD", "Not given", "Not given", False, None]
        run(url, send["id"], data, lee.session_hash, lee.client.cookies)
        mallory = Page(url, auth=MALLORY, session_hash=lee.session_hash)
        out = run(url, send["id"], ["and?", *data[1:]], lee.session_hash, mallory.client.cookies)
        assert "SECRET-WORD" not in str(out["data"])
        assert FOREIGN in str(out["data"])
        again = run(
            url, send["id"], ["still sore", *data[1:]], lee.session_hash, lee.client.cookies
        )
        assert "SECRET-WORD" in str(again["data"])  # the owner's conversation goes on

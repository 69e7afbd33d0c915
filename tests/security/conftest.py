"""The live app for the attack tests: real HTTP on 127.0.0.1, the real agent and EHR.

The model is scripted (these tests are about who may do what, not about answers);
everything else is what ``make app`` runs: the Gradio page, the agent with its SQLite
memory, the write tools and the embedded FHIR server behind the access policy. The
input attacks (uploads, images, markdown) use the UI tests' agent double instead.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))  # the shared live_app helper

from gradio_http import run  # noqa: E402
from live_app import running_app  # noqa: E402
from prebuilt_indexes import seed_indexes  # noqa: E402
from ui_fakes import FakeAgent  # noqa: E402

from docgemma.agent import factory  # noqa: E402
from docgemma.auth import hash_password  # noqa: E402
from docgemma.config import Settings  # noqa: E402
from docgemma.kb.store import prepare_knowledge_base  # noqa: E402
from docgemma.llm.scripted import ScriptedBackend  # noqa: E402
from docgemma.tools.literature_index import prepare_index  # noqa: E402

PATIENT = "abc-123"
METFORMIN = {
    "patient_id": PATIENT,
    "medication_name": "metformin",
    "dosage": "500 mg",
    "frequency": "twice daily",
}
PASSWORDS = {"dr.lee": "correct horse 1", "mallory": "battery staple 2"}


def proposal(args: dict[str, Any]) -> list[Any]:
    """The model's three answers that make the agent propose ``args`` as a prescription."""
    return [
        {"intent": "TOOL_NEEDED", "task_summary": "prescribe", "suggested_tool": None},
        {"tool_name": "prescribe_medication"},
        args,
    ]


def after_write() -> list[Any]:
    """The result classification; the answer is then the prescription tool's confirmation."""
    return [{"quality": "success_rich", "brief_summary": "order created"}]


@pytest.fixture(scope="module")
def agent() -> FakeAgent:
    """The agent double behind the module's live app; it records every turn it is given."""
    return FakeAgent()


@pytest.fixture(scope="module")
def live_app_with(tmp_path_factory, agent):
    """Start the real app on the agent double with some settings changed; yields its URL."""
    with ExitStack() as stack:

        def start(*, settled: bool = False, **overrides) -> str:
            """``settled``: build the indexes the app builds in the background first (they
            are one per data folder and process), so that nothing else allocates while a
            test measures the process."""
            folder = tmp_path_factory.mktemp("app")
            if settled:
                seed_indexes(folder)  # the copy, opened here rather than built
                settings = Settings(data_dir=folder, offline=True, **overrides)
                prepare_index(settings)
                prepare_knowledge_base(settings)
            return stack.enter_context(
                running_app(folder, agent_factory=lambda s, e: agent, **overrides)
            )

        yield start


@pytest.fixture
def user_hashes() -> dict[str, str]:
    return {name: hash_password(password) for name, password in PASSWORDS.items()}


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """``with live(llm, **settings) as url``: the whole app on a free port."""

    @contextmanager
    def start(llm: ScriptedBackend, **overrides: Any) -> Iterator[str]:
        monkeypatch.setattr(factory, "create_backend", lambda _settings: llm)
        overrides = {"literature_index_size": 10, **overrides}  # a small start-up index
        with running_app(
            tmp_path / "var", agent_factory=factory.build_agent, backend="scripted", **overrides
        ) as url:
            yield url

    return start


def fhir_search(
    url: str, resource_type: str, auth: tuple[str, str] | None = None, **params: str
) -> list[dict[str, Any]]:
    """What the record holds, read over HTTP (from loopback, or signed in as ``auth``)."""
    reply = httpx.get(
        f"{url}/fhir/{resource_type}", params={**params, "_count": "200"}, auth=auth, timeout=30
    )
    reply.raise_for_status()
    return [e["resource"] for e in reply.json().get("entry", [])]


class Page:
    """One browser session spoken over Gradio's HTTP API, as the page's JavaScript does.

    ``session_hash`` forges the session a request claims to belong to: Gradio takes
    whatever hash a client sends. Approve is not a fixed event of the page: the card's
    editor is a ``gr.render`` that adds the edit boxes and the Approve event to the
    session when the card shows a new proposal, so ``card`` runs that render as the
    page does and ``approve`` calls the event it added.
    """

    def __init__(
        self, url: str, auth: tuple[str, str] | None = None, session_hash: str | None = None
    ) -> None:
        from gradio_client import Client

        # a patient timeout: the shared test machine can be slow to answer
        self.url = url
        self.client = Client(url, auth=auth, verbose=False, httpx_kwargs={"timeout": 120})
        if session_hash is not None:
            self.client.session_hash = session_hash
        self.editor: Editor | None = None
        """The editor the last card rendered (its Approve event and boxes)."""

    @property
    def session_hash(self) -> str:
        return self.client.session_hash

    def say(self, text: str) -> list[dict[str, Any]]:
        history, _box, _error = self.client.predict({"text": text, "files": []}, api_name="/submit")
        return history

    def card(self) -> Card:
        """The approval card as the page would redraw it now (and its editor, when shown)."""
        config = self._config()
        [panels] = [d for d in config["dependencies"] if d.get("api_name") == "panels"]
        out = run(self.url, panels["id"], [None], self.session_hash, self.client.cookies)
        by_id = dict(zip(panels["outputs"], out["data"], strict=True))
        ids = _ids_by_elem(config)
        key = by_id[ids["approval-key"]]
        if key:
            self.editor = self.render_editor(key)
        return Card(
            markdown=_text(by_id[ids["approval-text"]]),
            error=_text(by_id[ids["approval-error"]]),
            fields=list(self.editor.fields.values()) if key and self.editor else [],
            key=key,
        )

    def render_editor(self, key: str) -> Editor:
        """Run the card editor's render for ``key``, as the page does when the key changes."""
        config = self._config()
        ids = _ids_by_elem(config)
        [render] = [
            d
            for d in config["dependencies"]
            if [ids["approval-key"], "change"] in [list(t) for t in d["targets"]]
        ]
        data = [None if i != ids["approval-key"] else key for i in render["inputs"]]
        made = run(self.url, render["id"], data, self.session_hash, self.client.cookies)
        rendered = made["render_config"]
        [approve] = [
            d
            for d in rendered["dependencies"]
            if [ids["approve-btn"], "click"] in [list(t) for t in d["targets"]]
        ]
        props = {c["id"]: c.get("props", {}) for c in rendered["components"]}
        boxes = approve["inputs"][3:]  # after the session, the card's key and the approver
        fields = {props[i]["label"]: props[i].get("value") for i in boxes}
        return Editor(approve_fn=approve["id"], fields=fields)

    def approve(
        self, key: str, fields: list[Any], editor: Editor | None = None, name: str = ""
    ) -> tuple[list[dict[str, Any]], str]:
        """Press Approve on ``editor`` (this page's last one, else one rendered for ``key``),
        sending ``name`` as the approver's name box would."""
        editor = editor or self.editor or self.render_editor(key)
        values = [("" if v is None else str(v)) for v in fields] + [""] * len(editor.fields)
        data = [None, key, name, *values[: len(editor.fields)]]  # one value per box
        out = run(self.url, editor.approve_fn, data, self.session_hash, self.client.cookies)
        history, message = out["data"]
        return history, message

    def reject(
        self, key: str, reason: str = "", name: str = ""
    ) -> tuple[list[dict[str, Any]], str]:
        [event] = [d for d in self._config()["dependencies"] if d.get("api_name") == "reject"]
        data = [None, key, name, reason]
        out = run(self.url, event["id"], data, self.session_hash, self.client.cookies)
        history, message = out["data"]
        return history, message

    def _config(self) -> dict[str, Any]:
        reply = httpx.get(f"{self.url}/config", cookies=self.client.cookies, timeout=30)
        reply.raise_for_status()
        return reply.json()


class Editor:
    def __init__(self, approve_fn: int, fields: dict[str, Any]) -> None:
        self.approve_fn, self.fields = approve_fn, fields


class Card:
    def __init__(self, markdown: str, error: str, fields: list[Any], key: str) -> None:
        self.markdown, self.error, self.fields, self.key = markdown, error, fields, key


def _ids_by_elem(config: dict[str, Any]) -> dict[str, int]:
    return {
        c["props"]["elem_id"]: c["id"]
        for c in config["components"]
        if c.get("props", {}).get("elem_id")
    }


def _text(value: Any) -> str:
    if isinstance(value, dict):
        value = value.get("value")
    return value or ""


def texts(history: list[dict[str, Any]]) -> str:
    """Everything a history shows, as one string (to look for leaked content)."""
    import json

    return json.dumps(history)

"""The page's handlers without a browser: approvals, failures and input limits."""

from __future__ import annotations

import asyncio

from live_app import load_app_module
from PIL import Image
from ui_fakes import PRESCRIPTION, FakeAgent

from docgemma.agent.outcome import TurnResult
from docgemma.config import Settings
from docgemma.ui.handlers import Handlers
from docgemma.ui.patients import PatientMatch
from docgemma.ui.render import BACKEND_DOWN, LOADING_MODEL
from docgemma.ui.session import SessionState


class Directory:
    """Just the patient read the approval card makes."""

    async def patient(self, patient_id: str) -> PatientMatch | None:
        found = {"p1": PatientMatch(id="p1", name="Jane Doe", birth_date="1980-02-03")}
        return found.get(patient_id)


async def collect(gen):
    return [out async for out in gen]


def handlers(tmp_path, agent, patients=None, **settings) -> Handlers:
    async def get_agent():
        return agent

    return Handlers(
        Settings(data_dir=tmp_path, **settings), get_agent, patients, tmp_path / "uploads"
    )


async def proposed(h: Handlers) -> SessionState:
    session = SessionState()
    await collect(h.submit({"text": "prescribe metformin", "files": []}, session, None))
    assert session.approval.open
    return session


def proposing_agent() -> FakeAgent:
    return FakeAgent(
        events=[], result=TurnResult(final_response="Proposed.", pending_approval=PRESCRIPTION)
    )


async def test_the_card_names_the_patient_from_the_record(tmp_path):
    h = handlers(tmp_path, proposing_agent(), Directory())
    session = await proposed(h)
    card = (await h.panels(session, None))[7]
    assert "**Jane Doe**, born 1980-02-03 (`p1`)" in card


async def test_the_clinician_name_is_recorded_with_the_decision(tmp_path):
    agent = proposing_agent()
    h = handlers(tmp_path, agent, clinician_name="Dr Default")
    session = await proposed(h)
    h.set_clinician("  Dr Ada Lovelace ", session)
    await collect(h.approve(session, session.approval.request.idempotency_key, None))
    assert agent.decisions[-1].approved_by == "Dr Ada Lovelace"

    session = await proposed(h)
    h.set_clinician("", session)  # blank: the server's setting
    await collect(h.reject(session, session.approval.request.idempotency_key, None, "not now"))
    assert agent.decisions[-1].approved_by == "Dr Default"


def test_the_default_approver_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCGEMMA_CLINICIAN_NAME", "Dr Env")
    assert Settings(data_dir=tmp_path).clinician_name == "Dr Env"
    monkeypatch.delenv("DOCGEMMA_CLINICIAN_NAME")
    assert Settings(data_dir=tmp_path).clinician_name == "clinician"


async def test_a_failing_agent_factory_shows_the_backend_message_and_the_app_recovers(tmp_path):
    """``AgentSlot`` retries the factory on the next turn; the page stays usable meanwhile."""
    attempts = []

    def factory(settings, ehr):
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("model file missing")
        return FakeAgent()

    settings = Settings(data_dir=tmp_path, offline=True)
    slot = load_app_module().AgentSlot(settings, None, factory)
    h = Handlers(settings, slot.get, None, tmp_path / "uploads")
    session = SessionState()
    outs = await collect(h.submit({"text": "What is hypertension?", "files": []}, session, None))
    history, _, error = outs[-1]
    assert error["visible"] and BACKEND_DOWN in error["value"]
    assert history == [] and not session.busy
    outs = await collect(h.submit({"text": "What is hypertension?", "files": []}, session, None))
    assert "high blood pressure" in outs[-1][0][-1]["content"] and len(attempts) == 2


async def test_an_upload_over_the_limit_gets_the_friendly_message(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path))  # the file is where uploads land
    agent = FakeAgent()
    h = handlers(tmp_path, agent, max_image_bytes=50_000)
    big = tmp_path / "big.png"
    Image.effect_noise((256, 256), 90).convert("RGB").save(big)
    assert big.stat().st_size > 50_000
    session = SessionState()
    outs = await collect(h.submit({"text": "look", "files": [str(big)]}, session, None))
    _, _, error = outs[-1]
    assert "the limit is 0.1 MB" in error["value"] and not agent.calls


def test_the_settings_panel_names_the_model_profile(tmp_path):
    async def no_agent():
        raise AssertionError("not used")

    text = Handlers(
        Settings(data_dir=tmp_path, backend="llamacpp", model="qwen2.5-0.5b"),
        no_agent,
        None,
        tmp_path,
    ).settings_markdown()
    assert "Model: **Qwen2.5-Coder 0.5B Instruct (Q4_K_M), profile qwen2.5-0.5b**" in text
    assert ".gguf" not in text and ".cache" not in text


async def test_a_turn_before_the_model_is_loaded_shows_a_loading_step(tmp_path):
    """The page is served while the agent builds; a turn that comes early says it is waiting."""
    release = asyncio.Event()

    async def slow_factory(settings, ehr):
        await release.wait()
        return FakeAgent()

    settings = Settings(data_dir=tmp_path, offline=True)
    slot = load_app_module().AgentSlot(settings, None, slow_factory)
    h = Handlers(settings, slot.get, None, tmp_path / "uploads", agent_ready=slot.ready)
    session = SessionState()
    turn = h.submit({"text": "What is hypertension?", "files": []}, session, None)
    first_view = (await anext(turn))[0]
    assert first_view[-1] == {"role": "assistant", "content": LOADING_MODEL}
    release.set()
    rest = [out async for out in turn]
    answer = rest[-1][0]
    assert "high blood pressure" in answer[-1]["content"]
    assert all(m["content"] != LOADING_MODEL for m in answer) and slot.ready()

    again = await collect(h.submit({"text": "Thanks", "files": []}, session, None))
    assert again[0][0][-1]["content"] == "Thanks"  # ready now: no loading step

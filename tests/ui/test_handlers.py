"""The page's handlers without a browser: approvals, failures and input limits."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import gradio as gr
import pytest
from live_app import load_app_module
from PIL import Image
from ui_fakes import PRESCRIPTION, FakeAgent, panel_view

from docgemma.agent.outcome import TurnResult
from docgemma.auth import Access, Mode
from docgemma.config import Settings
from docgemma.ehr.chart import ChartSummary
from docgemma.ehr.client import StoredImage
from docgemma.ui.handlers import Handlers
from docgemma.ui.patients import EHRUnavailable, PatientMatch
from docgemma.ui.render import BACKEND_DOWN, LOADING_MODEL
from docgemma.ui.session import SessionState
from docgemma.ui.uploads import NO_VISION


class Directory:
    """The patient reads the page makes: the approval card's, and the side panel's."""

    def __init__(self, *, ehr_down: bool = False) -> None:
        self.ehr_down = ehr_down
        self.chart_reads: list[str] = []

    async def patient(self, patient_id: str) -> PatientMatch | None:
        found = {"p1": PatientMatch(id="p1", name="Jane Doe", birth_date="1980-02-03")}
        return found.get(patient_id)

    async def chart(self, patient_id: str) -> ChartSummary | None:
        self.chart_reads.append(patient_id)
        if self.ehr_down:
            raise EHRUnavailable("The patient record service is not reachable.")
        if patient_id != "p1":
            return None
        return ChartSummary(patient_id="p1", name="Jane Doe", allergies=["penicillin (rash)"])

    async def images(self, patient_id: str) -> list[StoredImage]:
        return [StoredImage(id="m1", description="Chest X-ray", modality="DX")]


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
    view = panel_view()
    out = await h.panels(view, session, None)
    assert "**Jane Doe**, born 1980-02-03 (`p1`)" in out[view.card_text]
    assert out[view.card]["visible"] and out[view.card_key] == PRESCRIPTION.idempotency_key
    assert out[view.card_error] == "" and not out[view.editor]["visible"]
    assert set(out) <= set(view.outputs())  # every update names one of the event's outputs


async def test_without_a_proposal_the_card_is_hidden_and_follow_ups_are_shown(tmp_path):
    h = handlers(tmp_path, FakeAgent())
    session = SessionState()
    await collect(h.submit({"text": "What is hypertension?", "files": []}, session, None))
    view = panel_view()
    out = await h.panels(view, session, None)
    assert not out[view.card]["visible"] and out[view.card_key] == ""
    assert [out[b]["value"] for b in view.follow_ups] == [
        "What causes it?",
        "How is it treated?",
        "What are the risks?",
    ]
    assert out[view.follow_row]["visible"]


async def test_a_bad_edit_keeps_the_card_open_with_the_message_and_nothing_is_decided(tmp_path):
    agent = proposing_agent()
    h = handlers(tmp_path, agent, Directory())
    session = await proposed(h)
    key = session.approval.request.idempotency_key
    # the boxes in the order the editor draws them: patient, medicine, dose, frequency, route
    outs = await collect(
        h.approve(session, key, "", None, "p1", "metformin", "", "twice daily", "")
    )
    assert "dosage" in outs[-1][1] and not agent.decisions
    view = panel_view()
    out = await h.panels(view, session, None)
    assert "dosage" in out[view.card_error] and out[view.editor]["visible"]
    await collect(h.approve(session, key, "", None, "p1", "metformin", "1 g", "twice daily", ""))
    assert agent.decisions[-1].action == "edit" and agent.decisions[-1].args["dosage"] == "1 g"


async def test_the_editor_gets_the_proposed_tools_fields_only_for_the_card_shown(tmp_path):
    h = handlers(tmp_path, proposing_agent(), Directory())
    session = await proposed(h)
    key = session.approval.request.idempotency_key
    fields = h.editor_fields(session, key, None)
    assert [(f.label, f.value) for f in fields] == [
        ("Patient id", "p1"),
        ("Medication name", "metformin"),
        ("Dosage", "500 mg"),
        ("Frequency", "twice daily"),
        ("Route", ""),
        ("Duration", ""),
        ("Notes", ""),
    ]
    assert h.editor_fields(session, "an-older-card", None) == []
    assert h.editor_fields(SessionState(), key, None) == []  # no proposal in that session


async def test_another_user_gets_no_editor_and_no_card(tmp_path):
    async def get_agent():
        return proposing_agent()

    settings = Settings(data_dir=tmp_path)
    signed_in = Access(Mode.USERS, users={"lee": "x", "mallory": "y"})
    h = Handlers(settings, get_agent, Directory(), tmp_path / "uploads", signed_in)
    session = SessionState()
    lee, mallory = gr.Request(username="lee"), gr.Request(username="mallory")
    await collect(h.submit({"text": "prescribe metformin", "files": []}, session, lee))
    key = session.approval.request.idempotency_key
    assert [f.value for f in h.editor_fields(session, key, lee)][:2] == ["p1", "metformin"]
    with pytest.raises(gr.Error):
        h.editor_fields(session, key, mallory)
    view = panel_view()
    out = await h.panels(view, session, mallory)
    assert not out[view.card]["visible"] and out[view.card_key] == ""
    assert view.card_text not in out


async def test_the_clinician_name_is_recorded_with_the_decision(tmp_path):
    agent = proposing_agent()
    h = handlers(tmp_path, agent, clinician_name="Dr Default")
    session = await proposed(h)
    key = session.approval.request.idempotency_key
    await collect(h.approve(session, key, "  Dr Ada Lovelace ", None))
    assert agent.decisions[-1].approved_by == "Dr Ada Lovelace"

    session = await proposed(h)
    key = session.approval.request.idempotency_key
    await collect(h.reject(session, key, "", "not now", None))  # blank: the server's setting
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


@pytest.mark.parametrize("vision", [False, True])
async def test_an_image_for_a_model_that_cannot_read_it_is_said_beside_the_input_at_once(
    tmp_path, monkeypatch, vision
):
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path))  # the file is where uploads land
    agent = FakeAgent()
    agent.deps = SimpleNamespace(llm=SimpleNamespace(supports_vision=vision))
    h = handlers(tmp_path, agent)
    photo = tmp_path / "lesion.png"
    Image.new("RGB", (64, 64), (180, 90, 60)).save(photo)
    session = SessionState()
    outs = await collect(h.submit({"text": "what is it?", "files": [str(photo)]}, session, None))
    said = [n for n, (_, _, note) in enumerate(outs) if NO_VISION in str(note.get("value"))]
    if vision:
        assert not said
        return
    first = said[0]  # before the agent's first event, and still there at the end
    assert first <= 1 and said == list(range(first, len(outs)))
    assert outs[-1][2]["visible"] is True
    _, _, note = (await collect(h.submit({"text": "and now?", "files": []}, session, None)))[-1]
    assert note["visible"] is False and not note["value"]


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
    assert "demonstration record" in text and "=" not in text  # words, not setting names


def test_the_settings_panel_shows_no_address_of_a_served_model(tmp_path):
    async def no_agent():
        raise AssertionError("not used")

    settings = Settings(
        data_dir=tmp_path, backend="openai", openai_base_url="http://10.0.0.7:8000/v1"
    )
    text = Handlers(settings, no_agent, None, tmp_path).settings_markdown()
    assert f"Model: **{settings.openai_model}**" in text
    assert "10.0.0.7" not in text and "http" not in text


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


async def test_a_patient_the_agent_found_by_name_becomes_the_pages_active_patient(tmp_path):
    found = FakeAgent(
        events=[], result=TurnResult(final_response="Found Jane Doe.", active_patient_id="p1")
    )
    h = handlers(tmp_path, found, Directory())
    session, view = SessionState(), panel_view()
    assert (await h.panels(view, session, None))[view.patient_banner] == "No active patient."
    await collect(h.submit({"text": "find Jane Doe", "files": []}, session, None))
    out = await h.panels(view, session, None)
    assert out[view.patient_banner] == "**Active patient:** Jane Doe (`p1`)"
    assert "### Jane Doe" in out[view.chart] and "penicillin" in out[view.chart]  # her chart
    assert out[view.image_picker]["choices"] == [("DX · Chest X-ray", "m1")]
    assert session.image_labels == {"m1": "DX · Chest X-ray"}
    await collect(h.submit({"text": "and her allergies?", "files": []}, session, None))
    assert found.calls[-1]["patient"] == "p1"  # the next turn works on the same patient
    again = await h.panels(view, session, None)
    assert again[view.chart] == gr.update() and h._patients.chart_reads == ["p1"]


async def test_an_unreadable_adopted_patient_is_said_once_and_not_read_again(tmp_path):
    agent = FakeAgent(events=[], result=TurnResult(final_response="Found.", active_patient_id="p1"))
    h = handlers(tmp_path, agent, Directory(ehr_down=True))
    session, view = SessionState(), panel_view()
    await collect(h.submit({"text": "find Jane Doe", "files": []}, session, None))
    out = await h.panels(view, session, None)
    assert out[view.chart] == "⚠️ The patient record service is not reachable."
    assert out[view.patient_banner] == "**Active patient:** name not loaded (`p1`)"
    await h.panels(view, session, None)
    assert h._patients.chart_reads == ["p1"]


async def test_a_reply_that_names_no_patient_keeps_the_selection(tmp_path):
    h = handlers(tmp_path, FakeAgent(), Directory())
    session = SessionState(patient_id="p1", patient_name="Jane Doe")
    await collect(h.submit({"text": "What is hypertension?", "files": []}, session, None))
    assert (session.patient_id, session.patient_name) == ("p1", "Jane Doe")


async def test_an_id_that_is_not_a_fhir_id_is_never_taken_from_a_turn(tmp_path):
    crafted = "p1`) **Approve now** (`x"
    agent = FakeAgent(events=[], result=TurnResult(final_response="ok", active_patient_id=crafted))
    h = handlers(tmp_path, agent, Directory())
    session = SessionState()
    await collect(h.submit({"text": "find them", "files": []}, session, None))
    assert session.patient_id is None


def test_the_first_page_names_the_model_and_says_when_it_is_ready(tmp_path):
    settings = Settings(data_dir=tmp_path, model="gemma3-270m")
    ready = [False]
    h = Handlers(settings, None, None, tmp_path / "uploads", agent_ready=lambda: ready[0])
    text, timer = h.model_status()
    assert "Gemma 3 270M" in text and "loading" in text and timer["active"] is True
    ready[0] = True
    text, timer = h.model_status()
    assert "Gemma 3 270M" in text and text.endswith("ready") and timer["active"] is False


def test_a_model_that_is_not_installed_is_said_plainly_with_the_command(tmp_path, monkeypatch):
    settings = Settings(data_dir=tmp_path, model_cache_dir=tmp_path, model="qwen2.5-0.5b")
    monkeypatch.setattr("docgemma.profiles._installed_version", lambda name: None)
    h = Handlers(settings, None, None, tmp_path / "uploads", agent_ready=lambda: False)
    text, timer = h.model_status()
    assert "the language model cannot load" in text and timer["active"] is True
    assert "`python -m docgemma.setup_assets --install qwen2.5-0.5b`" in text


def test_a_failed_start_shows_the_engines_diagnosis(tmp_path):
    from docgemma.llm.errors import ModelUnavailable

    settings = Settings(data_dir=tmp_path, model="gemma3-270m")
    failure = ModelUnavailable("the engine crashed (SIGILL); CPU has avx2\nEngine log: noise")
    h = Handlers(
        settings,
        None,
        None,
        tmp_path / "uploads",
        agent_ready=lambda: False,
        agent_failure=lambda: failure,
    )
    text, _ = h.model_status()
    assert "cannot load" in text and "SIGILL" in text and "noise" not in text

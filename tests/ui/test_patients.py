"""The patient panel against the real embedded FHIR server over HTTP."""

from __future__ import annotations

import pytest
from fhir_server import embedded_fhir
from ui_fakes import FakeAgent

from docgemma.config import Settings
from docgemma.ehr.client import EHRClient, EHRError
from docgemma.imaging import prepare_image
from docgemma.ui.handlers import Handlers
from docgemma.ui.patients import EHRPatients, EHRUnavailable, chart_markdown
from docgemma.ui.session import SessionState

fhir_url = embedded_fhir("module")


async def test_search_and_chart_of_a_synthetic_patient(fhir_url):
    patients = EHRPatients(EHRClient(fhir_url))
    matches = await patients.search("John Smith")
    assert [m.id for m in matches] == ["abc-123"] and "born" in matches[0].label
    chart = await patients.chart("abc-123")
    assert chart.name.endswith("Smith") and chart.conditions and chart.allergies
    assert any("metformin" in m.lower() for m in chart.medications)
    md = chart_markdown(chart)
    assert "**Active medications**" in md and "**Latest labs**" in md and "`abc-123`" in md
    assert chart.notes and "**Latest notes**" in md and all(n.excerpt in md for n in chart.notes)


async def test_unknown_patient_and_several_matches(fhir_url):
    patients = EHRPatients(EHRClient(fhir_url))
    assert await patients.chart("nobody-here") is None
    assert len(await patients.search("Wilson")) >= 3


async def test_unreachable_ehr_is_a_readable_error():
    patients = EHRPatients(EHRClient("http://127.0.0.1:9/fhir", timeout_s=1.0))
    with pytest.raises(EHRUnavailable, match="unavailable"):
        await patients.search("x")


async def test_stored_images_of_a_patient_are_listed_and_fetched(fhir_url, tmp_path):
    client = EHRClient(fhir_url)
    stored = await client.patient_images("mgarcia-001")
    assert [(s.id, s.modality, s.date) for s in stored] == [
        ("mgarcia-001-image-1", "CT", "2025-05-29")
    ]
    assert stored[0].description.startswith("CT head") and "CT head" in stored[0].label
    data = await client.image_bytes(stored[0].id)
    image = prepare_image(data, 1_000_000)
    assert image.kind == "png" and image.width == 128
    assert await client.patient_images("abc-123") == []


async def test_image_errors_are_readable(fhir_url):
    patients = EHRPatients(EHRClient(fhir_url))
    with pytest.raises(EHRUnavailable, match="could not be loaded"):
        await patients.image("no-such-image")
    with pytest.raises(EHRError) as caught:  # an ImagingStudy id is not a Media id
        await EHRClient(fhir_url).image_bytes("mgarcia-001-study-1")
    assert caught.value.kind == "not_found"


async def test_patient_lookup_for_the_approval_card(fhir_url):
    patients = EHRPatients(EHRClient(fhir_url))
    found = await patients.patient("abc-123")
    assert (found.name, found.birth_date) == ("John Smith", "1958-04-12")
    assert await patients.patient("nobody-here") is None


async def test_a_picked_stored_image_goes_with_the_next_message_like_an_upload(fhir_url, tmp_path):
    agent = FakeAgent()

    async def get_agent():
        return agent

    patients = EHRPatients(EHRClient(fhir_url))
    h = Handlers(Settings(data_dir=tmp_path), get_agent, patients, tmp_path / "uploads")
    session = SessionState()
    panel = h.patient_panel
    _, _, picker, _ = await panel.select_patient("lchen-002", session)
    assert [c[1] for c in picker["choices"]] == ["lchen-002-image-1"]
    assert "CT abdomen" in picker["choices"][0][0]
    assert await panel.pick_image("mgarcia-001-image-1", session) and session.attached is None

    note = await panel.pick_image("lchen-002-image-1", session)
    assert "CT abdomen" in note and "next message" in note
    await collect(h.submit({"text": "Any renal calculi?", "files": []}, session, None))
    sent = agent.calls[-1]
    assert sent["image"].mime_type == "image/png" and sent["message"] == "Any renal calculi?"
    shown = session.history[0]["content"]["path"]
    assert shown.startswith(str(tmp_path / "uploads")) and session.attached is None
    await collect(h.submit({"text": "And now?", "files": []}, session, None))
    assert agent.calls[-1]["image"] is None  # the pick went with one message only


async def collect(gen):
    return [out async for out in gen]

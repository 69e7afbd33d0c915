"""The patient panel against the real embedded FHIR server over HTTP."""

from __future__ import annotations

import pytest

from docgemma.ehr.client import EHRClient
from docgemma.ehr.server import serve_in_thread
from docgemma.ui.patients import EHRPatients, EHRUnavailable, chart_markdown


@pytest.fixture(scope="module")
def fhir_url(tmp_path_factory):
    with serve_in_thread(tmp_path_factory.mktemp("ehr") / "ehr.sqlite") as url:
        yield url


async def test_search_and_chart_of_a_synthetic_patient(fhir_url):
    patients = EHRPatients(EHRClient(fhir_url))
    matches = await patients.search("John Smith")
    assert [m.id for m in matches] == ["abc-123"] and "born" in matches[0].label
    chart = await patients.chart("abc-123")
    assert chart.name.endswith("Smith") and chart.conditions and chart.allergies
    assert any("metformin" in m.lower() for m in chart.medications)
    md = chart_markdown(chart)
    assert "**Active medications**" in md and "**Latest labs**" in md and "`abc-123`" in md


async def test_unknown_patient_and_several_matches(fhir_url):
    patients = EHRPatients(EHRClient(fhir_url))
    assert await patients.chart("nobody-here") is None
    assert len(await patients.search("Wilson")) >= 3


async def test_unreachable_ehr_is_a_readable_error():
    patients = EHRPatients(EHRClient("http://127.0.0.1:9/fhir", timeout_s=1.0))
    with pytest.raises(EHRUnavailable, match="unavailable"):
        await patients.search("x")

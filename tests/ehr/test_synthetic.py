"""The synthetic EHR: reproducible, valid FHIR, and covering what the agent is tested with."""

from __future__ import annotations

import base64
import io
import json
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from docgemma.ehr import codes
from docgemma.ehr.loader import DEFAULT_BUNDLES
from docgemma.ehr.operations import validate
from docgemma.ehr.synthetic import generate


@pytest.fixture(scope="module")
def resources() -> list[dict]:
    return [
        entry["resource"]
        for path in sorted(DEFAULT_BUNDLES.glob("*.json"))
        for entry in json.loads(path.read_text())["entry"]
    ]


def test_committed_bundles_match_the_generator(tmp_path: Path) -> None:
    written = generate(tmp_path)
    committed = sorted(DEFAULT_BUNDLES.glob("*.json"))
    assert [p.name for p in sorted(written)] == [p.name for p in committed]
    for path in committed:
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), (
            f"{path.name} is stale: regenerate it"
        )


def test_every_resource_is_valid_r4(resources: list[dict]) -> None:
    for resource in resources:
        validate(resource)


def test_cohort_covers_the_test_scenarios(resources: list[dict]) -> None:
    patients = {r["id"]: r for r in resources if r["resourceType"] == "Patient"}
    assert len(patients) >= 12
    names = Counter(
        " ".join([*p["name"][0]["given"], p["name"][0]["family"]]) for p in patients.values()
    )
    assert names["James Wilson"] == 3 and names["John Smith"] == 1 and names["Maria Garcia"] == 1
    assert patients["abc-123"]["name"][0]["family"] == "Smith"


@pytest.mark.parametrize(
    "drug", ["warfarin", "metformin", "amiodarone", "dofetilide", "lisinopril"]
)
def test_drugs_are_prescribed_with_rxnorm_codes(resources: list[dict], drug: str) -> None:
    code = codes.RXNORM_CODES[drug][0]
    orders = [
        r
        for r in resources
        if r["resourceType"] == "MedicationRequest"
        and {"system": codes.RXNORM, "code": code}
        in [
            {"system": c["system"], "code": c["code"]}
            for c in r["medicationCodeableConcept"]["coding"]
        ]
    ]
    assert orders, f"nobody is on {drug}"


@pytest.mark.parametrize("lab", ["potassium", "creatinine", "magnesium", "hba1c"])
def test_labs_are_coded_in_loinc(resources: list[dict], lab: str) -> None:
    loinc = codes.LABS[lab][0]
    found = [
        r
        for r in resources
        if r["resourceType"] == "Observation"
        and r["code"]["coding"][0]
        == {"system": codes.LOINC, "code": loinc, "display": codes.LABS[lab][1]}
    ]
    assert found and all("valueQuantity" in r for r in found)


def test_allergies_vitals_and_notes_present(resources: list[dict]) -> None:
    kinds = Counter(r["resourceType"] for r in resources)
    assert kinds["AllergyIntolerance"] >= 8
    vitals = [
        r
        for r in resources
        if r["resourceType"] == "Observation"
        and r["category"][0]["coding"][0]["code"] == "vital-signs"
    ]
    assert any(
        r["code"]["coding"][0]["code"] == "85354-9" and len(r["component"]) == 2 for r in vitals
    )
    notes = [r for r in resources if r["resourceType"] == "DocumentReference"]
    assert len(notes) >= 12
    assert all(
        base64.b64decode(n["content"][0]["attachment"]["data"]).decode().strip() for n in notes
    )


def test_three_patients_have_imaging_with_real_pixels(resources: list[dict]) -> None:
    media = [r for r in resources if r["resourceType"] == "Media"]
    reports = [r for r in resources if r["resourceType"] == "DiagnosticReport"]
    studies = [r for r in resources if r["resourceType"] == "ImagingStudy"]
    assert len({m["subject"]["reference"] for m in media}) >= 3
    assert len(reports) >= 3 and len(studies) >= 3
    for m in media:
        image = Image.open(io.BytesIO(base64.b64decode(m["content"]["data"])))
        assert image.size == (m["width"], m["height"])
        assert len(image.getcolors(maxcolors=1 << 16) or []) > 20, "image should not be blank"
    media_ids = {f"Media/{m['id']}" for m in media}
    assert all(r["media"][0]["link"]["reference"] in media_ids for r in reports)

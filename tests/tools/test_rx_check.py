"""A proposed prescription checked against the chart: interactions, allergies by class and
cross-reactivity, duplicates, kidney function; and the check on the real embedded FHIR
server over HTTP."""

from __future__ import annotations

import pytest
from fhir_server import embedded_fhir

from docgemma.ehr.builders import allergy_intolerance, entered_in_error
from docgemma.ehr.chart import Measurement
from docgemma.ehr.client import EHRClient
from docgemma.tools import ansm, drug_classes, rx_check
from docgemma.tools.args import PrescribeMedicationArgs
from docgemma.tools.base import ToolContext
from docgemma.tools.rx_check import (
    NOT_CHECKED_RENAL,
    Allergy,
    ChartFacts,
    check,
    latest_renal,
    review_prescription,
)

fhir_url = embedded_fhir("module")

ON_WARFARIN = ChartFacts(
    patient="Ada Test (t-001)",
    medications=("warfarin", "bisoprolol"),
    allergies=(Allergy("sulfamethoxazole", "rash, mild"),),
)
PENICILLIN_ALLERGIC = ChartFacts(
    patient="Ben Test (t-002)",
    medications=("lisinopril",),
    allergies=(Allergy("Penicillin", "anaphylaxis, severe"),),
    renal=Measurement(name="eGFR", value="41 mL/min/1.73 m²", date="2025-03-01", code="62238-1"),
)


def kinds(drug: str, chart: ChartFacts) -> list[tuple[str, str]]:
    return [(f.kind, f.severity) for f in check(drug, chart).ordered()]


def titles(drug: str, chart: ChartFacts) -> str:
    return " | ".join(f.title for f in check(drug, chart).findings)


def test_a_graded_interaction_with_an_active_medication_is_a_warning():
    review = check("naproxen", ON_WARFARIN)
    found, beta_blocker = [f for f in review.findings if f.kind == "interaction"]
    assert found.severity == "warning"
    assert found.title == "naproxen with warfarin (in the chart): combination not recommended"
    assert "bleeding risk" in found.detail and "ANSM" in (found.source or "")
    assert beta_blocker.severity == "caution" and "bisoprolol" in beta_blocker.title


def test_an_antibiotic_for_a_patient_on_warfarin_asks_for_the_inr():
    """The thesaurus grades no pair for amoxicillin and warfarin; its note on antivitamin K
    does, and the card quotes it in English."""
    review = check("amoxicillin", ON_WARFARIN)
    [found] = [f for f in review.findings if f.kind == "interaction"]
    assert found.severity == "warning" and "check the INR" in found.title
    assert "bleeding" in found.title and "warfarin" in found.title
    assert found.detail.endswith(
        '"Many cases of increase in the activity of vitamin K antagonists have been reported '
        'in patients receiving antibiotics." (translated from the French)'
    )
    assert review.warnings == [found]


def test_a_drug_that_is_no_antibiotic_gets_the_inr_reminder_as_context():
    review = check("omeprazole", ChartFacts("x (x-1)", medications=("warfarin",)))
    inr = [f for f in review.findings if "INR" in f.title]
    assert [f.severity for f in inr] in (["info"], ["caution"], ["warning"])
    assert all("antibiotic" not in f.title for f in inr)
    assert any(
        "check the INR whenever one or more drugs are started or stopped" in f.detail for f in inr
    )


def test_the_same_substance_as_a_recorded_allergy_is_a_warning():
    review = check("Bactrim", ON_WARFARIN)  # brand of trimethoprim/sulfamethoxazole
    allergy = [f for f in review.findings if f.kind == "allergy"]
    assert [(f.severity, f.title) for f in allergy] == [
        ("warning", "Allergy to sulfamethoxazole recorded (rash, mild)")
    ]
    # and its sulfamethoxazole is graded with warfarin
    assert any(f.kind == "interaction" and f.severity == "warning" for f in review.findings)


@pytest.mark.parametrize(
    ("allergy", "drug", "drug_class"),
    [
        ("Penicillin", "amoxicillin", "penicillins"),
        ("penicillins", "piperacillin", "penicillins"),
        ("amoxicillin", "flucloxacillin", "penicillins"),
        ("Sulfa drugs", "sulfadiazine", "sulfonamide antibiotics"),
        ("NSAIDs", "ibuprofen", "NSAIDs"),
        ("aspirin", "diclofenac", "NSAIDs"),
        ("Ceftriaxone", "cefuroxime", "cephalosporins"),
        ("penicillin", "amoxicillin-clavulanate", "penicillins"),
    ],
)
def test_an_allergy_to_the_class_is_a_warning(allergy: str, drug: str, drug_class: str):
    chart = ChartFacts("x (x-1)", allergies=(Allergy(allergy, "hives"),))
    [found] = [f for f in check(drug, chart).findings if f.kind == "allergy"]
    assert found.severity == "warning"
    expected = f"Allergy to {allergy} recorded (hives): {drug} is one of the {drug_class}"
    assert found.title == expected


@pytest.mark.parametrize(
    ("allergy", "drug", "severity", "words"),
    [
        ("Penicillin", "cefalexin", "caution", "partial cross-reactivity"),
        ("amoxicillin", "cefadroxil", "caution", "side chain"),
        ("cefuroxime", "amoxicillin", "caution", "partial cross-reactivity"),
        ("penicillin", "meropenem", "caution", "rare"),
        ("ibuprofen", "celecoxib", "caution", "cox-2"),
        ("sulfamethoxazole", "furosemide", "info", "unlikely"),
    ],
)
def test_a_cross_reacting_class_is_flagged_with_its_note(allergy, drug, severity, words):
    chart = ChartFacts("x (x-1)", allergies=(Allergy(allergy),))
    found = [f for f in check(drug, chart).findings if f.kind == "cross_reactivity"]
    assert [f.severity for f in found] == [severity]
    assert words in found[0].detail.lower() and f"Allergy to {allergy} recorded" in found[0].title


def test_an_allergy_of_another_class_is_not_a_finding():
    chart = ChartFacts("x (x-1)", allergies=(Allergy("penicillin"),))
    assert [f for f in check("azithromycin", chart).findings if "llerg" in f.title] == []


def test_the_latest_kidney_function_is_shown_and_no_threshold_is_claimed():
    [renal] = [f for f in check("amoxicillin", PENICILLIN_ALLERGIC).findings if f.kind == "renal"]
    assert renal.severity == "info"
    assert renal.title == "Latest eGFR: 41 mL/min/1.73 m² (2025-03-01)"
    assert renal.detail == f"For amoxicillin, {NOT_CHECKED_RENAL}."


def test_no_kidney_function_in_the_chart_is_said():
    [renal] = [f for f in check("amoxicillin", ON_WARFARIN).findings if f.kind == "renal"]
    assert renal.title == "No eGFR, creatinine clearance or creatinine in the chart"
    assert "no renal dose threshold was checked" in renal.detail


def test_egfr_is_preferred_to_a_newer_creatinine():
    def obs(code: str, value: float, when: str) -> dict:
        return {
            "code": {"coding": [{"system": "http://loinc.org", "code": code}], "text": code},
            "valueQuantity": {"value": value, "unit": "mg/dL"},
            "effectiveDateTime": when,
        }

    found = latest_renal(
        [
            obs("2160-0", 1.9, "2025-05-01"),
            obs("33914-3", 38, "2025-04-01"),
            obs("33914-3", 45, "2024-01-01"),
        ]
    )
    assert found is not None and found.code == "33914-3" and found.value.startswith("38")
    assert latest_renal([obs("2160-0", 1.9, "2025-05-01")]).code == "2160-0"
    assert latest_renal([obs("2345-7", 5.0, "2025-05-01")]) is None  # glucose: not renal


def test_nothing_found_says_what_was_checked():
    chart = ChartFacts(
        "Cy Test (t-003)", medications=("lisinopril",), allergies=(Allergy("latex"),)
    )
    review = check("paracetamol", chart)
    assert kinds("paracetamol", chart) == [("renal", "info")]
    assert review.warnings == [] and review.account().endswith("Nothing to flag.")
    assert review.checked == (
        "Checked against the chart of Cy Test (t-003): 1 active medication (lisinopril), "
        "1 allergy (latex), no kidney function value."
    )


def test_a_drug_already_active_is_a_duplicate():
    assert ("duplicate", "caution") in kinds("warfarin", ON_WARFARIN)
    assert ("duplicate", "caution") in kinds("Coumadin", ON_WARFARIN)  # brand → generic


def test_a_drug_no_reference_lists_is_said_to_be_unchecked():
    review = check("Zorblaxine", ON_WARFARIN)
    [found] = [f for f in review.findings if f.kind == "interaction"]
    assert found.title == "Interactions not checked for Zorblaxine"
    assert found.severity == "caution"


@pytest.mark.parametrize(
    ("drug", "antibacterial"),
    [("amoxicillin", True), ("doxycycline", True), ("Bactrim", True), ("metformin", False)],
)
def test_the_class_table_knows_the_antibacterials(drug: str, antibacterial: bool):
    assert drug_classes.is_antibacterial(drug_classes.names_of(drug)) is antibacterial


# ── the check over HTTP, on the real embedded FHIR server ──


async def test_the_review_reads_the_chart_over_http(fhir_url: str, settings) -> None:
    """mgarcia-001 takes warfarin and is allergic to sulfamethoxazole (synthetic data)."""
    client = EHRClient.from_settings(settings, fhir_url)
    ctx = ToolContext(settings=settings, fhir=client)
    args = PrescribeMedicationArgs(
        patient_id="mgarcia-001", medication_name="amoxicillin", dosage="500 mg", frequency="tid"
    )
    review = await review_prescription(args, ctx)
    assert review.checked.startswith("Checked against the chart of Maria Garcia (mgarcia-001)")
    assert "warfarin" in review.checked and "sulfamethoxazole" in review.checked
    assert any("check the INR" in f.title for f in review.warnings)
    [renal] = [f for f in review.findings if f.kind == "renal"]
    assert renal.title.startswith("Latest creatinine")

    other = args.model_copy(update={"patient_id": "nobody-999"})
    missing = await review_prescription(other, ctx)
    assert [f.kind for f in missing.findings] == ["chart"]
    assert missing.checked == "Not checked against the chart: the patient is not in the record."


async def test_without_a_record_the_card_says_nothing_was_checked(settings) -> None:
    args = PrescribeMedicationArgs(
        patient_id="abc-123", medication_name="amoxicillin", dosage="500 mg", frequency="tid"
    )
    review = await review_prescription(args, ToolContext(settings=settings))
    [finding] = review.findings
    assert finding.severity == "warning" and finding.title.startswith("Not checked")


async def test_a_correction_is_checked_without_the_entry_it_replaces(fhir_url: str, settings):
    """The warfarin order a correction replaces is not a duplicate of the corrected one, and
    an allergy marked entered in error is no allergy."""
    client = EHRClient.from_settings(settings, fhir_url)
    [order] = [
        m
        for m in await client.search("MedicationRequest", patient="mgarcia-001")
        if "warfarin" in str(m.get("medicationCodeableConcept")).lower()
    ]
    args = PrescribeMedicationArgs(
        patient_id="mgarcia-001", medication_name="warfarin", dosage="3 mg", frequency="od"
    )
    plain = await review_prescription(args, ToolContext(settings=settings, fhir=client))
    assert any(f.kind == "duplicate" for f in plain.findings)
    replacing = ToolContext(
        settings=settings, fhir=client, replaces=f"MedicationRequest/{order['id']}"
    )
    corrected = await review_prescription(args, replacing)
    assert not any(f.kind == "duplicate" for f in corrected.findings)

    retracted = entered_in_error(
        allergy_intolerance("mgarcia-001", "cefalexin", "rash", "mild", "2025-01-01")
    )
    await client.create_once(retracted, "retracted-cefalexin")
    cefalexin = args.model_copy(update={"medication_name": "cefalexin"})
    review = await review_prescription(cefalexin, ToolContext(settings=settings, fhir=client))
    assert "cefalexin" not in review.checked.lower()
    assert not any(f.kind == "allergy" for f in review.findings)


@pytest.mark.parametrize("name", ["co-trimoxazole", "Co-Trimoxazole", "cotrimoxazole"])
def test_a_british_combination_name_is_checked_as_its_parts(name: str) -> None:
    """Co-trimoxazole is sulfamethoxazole with trimethoprim: a sulfamethoxazole allergy and
    the thesaurus's warfarin entry for the combination both reach the card."""
    (allergy,) = rx_check.allergies(name, [rx_check.Allergy("sulfamethoxazole", "rash")])
    assert allergy.kind == "allergy" and allergy.severity == "warning"
    (interaction,) = rx_check.interactions(name, ["warfarin"])
    assert interaction.kind == "interaction" and interaction.severity == "warning"
    assert "not recommended" in interaction.title


def test_the_parts_of_co_codamol_are_known() -> None:
    ref = ansm.thesaurus()
    assert [s.name for s in drug_classes.substances(ref, "co-codamol")] == [
        "codeine",
        "paracetamol",
    ]

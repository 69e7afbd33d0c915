"""Which label sections answer which drug question, read from recorded and written labels."""

from __future__ import annotations

import httpx
import pytest
import respx
from recorded import recorded

from docgemma.tools import drug_safety
from docgemma.tools.args import DrugSafetyArgs
from docgemma.tools.base import ToolContext
from docgemma.tools.http import create_client
from docgemma.tools.label_sections import ASPECTS, SECTION_NAMES, asked_aspects, passages_for

POPULATIONS = (
    "8 USE IN SPECIFIC POPULATIONS 8.1 Pregnancy Risk Summary Use may cause fetal harm. "
    "8.2 Lactation Risk Summary No data on presence in human milk. "
    "8.6 Renal Impairment Reduce the dose when creatinine clearance is below 30 mL/min. "
    "8.7 Hepatic Impairment No adjustment is needed."
)


def written_label(**fields: str) -> dict:
    """A label with the given sections, each as openFDA gives it (a list of strings)."""
    return {"openfda": {"generic_name": ["EXAMPLAMIDE"]}} | {k: [v] for k, v in fields.items()}


@pytest.mark.parametrize(
    ("question", "aspects"),
    [
        ("What is the mechanism of action of this drug?", ["mechanism of action"]),
        ("How does it lower blood glucose?", ["mechanism of action"]),
        ("What dose for a CrCl of 20 mL/min?", ["renal impairment", "dosing"]),
        ("Is it safe to continue in a woman who is 10 weeks pregnant?", ["pregnancy"]),
        ("Can she take it while breastfeeding?", ["lactation"]),
        ("Dose adjustment in cirrhosis?", ["hepatic impairment", "dosing"]),
        ("What are its side effects?", ["adverse reactions"]),
        ("Does it carry a boxed warning?", ["boxed warning"]),
        ("Any warnings?", ["warnings"]),
        ("Tell me about it.", ["boxed warning", "contraindications", "warnings"]),
        (None, ["boxed warning", "contraindications", "warnings"]),
    ],
)
def test_a_question_asks_for_the_aspects_a_pharmacist_would_read(question, aspects):
    assert [a.name for a in asked_aspects(question)] == aspects


def test_every_section_the_table_reads_has_a_name():
    assert {f for a in ASPECTS for f in a.sections} <= set(SECTION_NAMES)


def test_a_population_question_reads_its_numbered_subsection():
    label = written_label(use_in_specific_populations=POPULATIONS)
    found, missing = passages_for(label, asked_aspects("Renal dosing?"))
    assert [(p.section, p.text) for p in found] == [
        (
            "Use in specific populations: renal impairment",
            "8.6 Renal Impairment Reduce the dose when creatinine clearance is below 30 mL/min.",
        )
    ]
    assert missing == ["dosing"]


def test_an_older_label_s_own_pregnancy_field_is_read_whole():
    label = written_label(pregnancy="Pregnancy Category D. Fetal toxicity has been reported.")
    found, missing = passages_for(label, asked_aspects("Safe in pregnancy?"))
    assert [p.section for p in found] == ["Pregnancy"] and not missing


def test_the_boxed_warning_comes_first_whatever_was_asked():
    label = written_label(
        boxed_warning="WARNING: LACTIC ACIDOSIS Postmarketing cases have occurred.",
        mechanism_of_action="12.1 Mechanism of Action It decreases hepatic glucose production.",
    )
    found, _ = passages_for(label, asked_aspects("How does it work?"))
    assert [p.section for p in found] == ["Boxed warning", "Mechanism of action"]
    assert found[1].text.endswith("Mechanism of Action It decreases hepatic glucose production.")


async def run(settings, drug: str, question: str, fixture: str):
    with respx.mock:
        respx.get(drug_safety.OPENFDA_LABEL_URL).mock(
            return_value=httpx.Response(200, json=recorded("openfda", fixture))
        )
        async with create_client(settings) as http:
            return await drug_safety.SPEC.run(
                DrugSafetyArgs(drug_name=drug), ToolContext(settings, http=http, question=question)
            )


async def test_a_dosing_question_gets_the_recorded_label_s_dosage_section(settings):
    online = settings.model_copy(update={"offline": False})
    outcome = await run(
        online,
        "gefitinib",
        "How should gefitinib be dosed?",
        "label_gefitinib_fulltext_sections.json",
    )
    assert outcome.ok and outcome.data["asked"] == ["dosing"]
    (passage,) = outcome.passages
    assert (passage.source, passage.section) == (0, "Dosage and administration")
    assert passage.text.startswith("Recommended dose is 250 mg orally, once daily")
    assert f"Dosage and administration: {passage.text}" in outcome.formatted
    assert "No boxed warning on this label." in outcome.formatted


async def test_a_section_the_recorded_label_lacks_is_said_missing_not_filled(settings):
    online = settings.model_copy(update={"offline": False})
    outcome = await run(
        online,
        "Jantoven",
        "What is the mechanism of action of warfarin?",
        "label_jantoven_warfarin_boxed.json",
    )
    assert [p.section for p in outcome.passages] == ["Boxed warning"]
    assert outcome.data["missing_sections"] == ["mechanism of action"]
    assert "This label has no section on: mechanism of action." in outcome.formatted


async def test_offline_a_label_question_is_a_failed_source(settings):
    outcome = await run(
        settings, "lisinopril", "Safe at 10 weeks pregnant?", "error_not_found_404.json"
    )
    assert outcome.error_type is not None and not outcome.passages
    assert outcome.formatted.startswith("The Drug Safety Report could not be used")

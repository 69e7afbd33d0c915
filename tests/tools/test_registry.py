"""The real registry: the ten clinical tools and the knowledge base, each defined once."""

from __future__ import annotations

import pytest

from docgemma.tools.base import ToolRegistry
from docgemma.tools.facts import RequestPattern, ToolRole
from docgemma.tools.registry import build_registry

SEED_LABELS = {
    "search_patient": "Patient Search",
    "get_patient_chart": "Patient Record",
    "check_drug_safety": "Drug Safety Report",
    "check_drug_interactions": "Drug Interaction Check",
    "search_medical_literature": "Medical Literature",
    "find_clinical_trials": "Clinical Trial Search",
    "prescribe_medication": "Prescription",
    "add_allergy": "Allergy Documentation",
    "save_clinical_note": "Clinical Note",
    "analyze_medical_image": "Image Analysis",
    "search_knowledge_base": "Condition Knowledge Base",
}


def test_registry_holds_every_tool_with_an_example_its_schema_accepts() -> None:
    registry = build_registry()
    assert set(registry.names) == set(SEED_LABELS)
    for spec in registry:
        assert spec.example is not None and spec.args.model_validate(spec.example.args)


def test_the_rules_facts_are_declared_on_the_specs() -> None:
    registry = build_registry()
    assert registry.with_role(ToolRole.FINDS_PATIENT).name == "search_patient"
    assert registry.with_role(ToolRole.READS_CHART).name == "get_patient_chart"
    assert {s.name for s in registry if s.role is ToolRole.SEARCHES_EVIDENCE} == {
        "search_medical_literature",
        "find_clinical_trials",
    }
    assert {s.name for s in registry if s.needs_patient} == {
        "get_patient_chart",
        *registry.write_tools(),
    }
    assert {s.name for s in registry if s.needs_image} == {"analyze_medical_image"}
    assert {s.name for s in registry if s.brief_answer} == {
        "check_drug_safety",
        "check_drug_interactions",
        "search_medical_literature",
        "find_clinical_trials",
    }
    assert not ToolRegistry([registry["check_drug_safety"]]).with_role(ToolRole.FINDS_PATIENT)


def test_a_write_summarises_itself_by_arguments_it_takes() -> None:
    for spec in build_registry():
        assert set(spec.summary_fields) <= set(spec.args.model_fields), spec.name
        assert bool(spec.summary_fields) == spec.writes_ehr, spec.name


@pytest.mark.parametrize(
    ("query", "position"),
    [
        ("Check the boxed warnings of dofetilide", 16),
        ("Review the chart of patient Linda Chen", 11),
        ("Review the chart of Linda Chen", None),  # no patient word: both groups are needed
    ],
)
def test_a_request_pattern_finds_where_the_question_asks(query: str, position: int | None) -> None:
    pattern = RequestPattern("p", any_of=("warning", "chart"), all_of=(("patient", "warning"),))
    assert pattern.position(query) == position


def test_clinical_labels_and_write_gate_match_the_seed() -> None:
    registry = build_registry()
    assert registry.labels() == SEED_LABELS
    assert registry.write_tools() == {"prescribe_medication", "add_allergy", "save_clinical_note"}


def test_prompt_tool_list_shows_full_signatures() -> None:
    text = build_registry().describe("full")
    assert "check_drug_interactions(drug_names: list[str])" in text
    assert "find_clinical_trials(condition: str, status: str = None)" in text
    assert (
        "add_allergy(patient_id: str, substance: str, reaction: str, severity: str = None)" in text
    )

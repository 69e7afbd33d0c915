"""The real registry: the seed's ten tools and the knowledge base, each defined once."""

from __future__ import annotations

from docgemma.agent.schemas import TOOL_ARG_SCHEMAS
from docgemma.tools.registry import build_registry

SEED_LABELS = {
    "search_patient": "Patient Search",
    "get_patient_chart": "Patient Record",
    "check_drug_safety": "Drug Safety Report",
    "check_drug_interactions": "Drug Interaction Check",
    "search_medical_literature": "Medical Literature",
    "find_clinical_trials": "Clinical Trials",
    "prescribe_medication": "Prescription",
    "add_allergy": "Allergy Documentation",
    "save_clinical_note": "Clinical Note",
    "analyze_medical_image": "Image Analysis",
    "search_knowledge_base": "Condition Knowledge Base",
}


def test_registry_holds_every_tool_with_its_argument_schema() -> None:
    registry = build_registry()
    assert set(registry.names) == set(TOOL_ARG_SCHEMAS)
    for spec in registry:
        assert spec.args is TOOL_ARG_SCHEMAS[spec.name]
        assert spec.example is not None and spec.args.model_validate(spec.example.args)


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

"""The five non-EHR tool specs: full descriptions, result labels, no exception escapes."""

from __future__ import annotations

import pytest
from recorded import seed_tool_descriptions

from docgemma.tools import drug_safety, image_analysis, interactions, literature, trials
from docgemma.tools.base import ToolContext, ToolOutcome, ToolRegistry

SPECS = [drug_safety.SPEC, interactions.SPEC, literature.SPEC, trials.SPEC, image_analysis.SPEC]
LABELS = {
    "check_drug_safety": "Drug Safety Report",
    "check_drug_interactions": "Drug Interaction Check",
    "search_medical_literature": "Medical Literature",
    "find_clinical_trials": "Clinical Trial Search",
    "analyze_medical_image": "Image Analysis",
}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_description_is_the_seed_full_description(spec):
    assert spec.description == seed_tool_descriptions()[spec.name]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_label_example_and_flags(spec):
    assert spec.label == LABELS[spec.name] and not spec.writes_ehr
    assert spec.short_description and len(spec.short_description) < len(spec.description)
    assert spec.args.model_validate(spec.example.args)


def test_registry_derives_selection_from_the_specs():
    registry = ToolRegistry(SPECS)
    selection = registry.selection_model()
    assert selection(tool_name="find_clinical_trials").tool_name == "find_clinical_trials"
    listing = registry.describe("full")
    for spec in SPECS:
        assert f"- {spec.name}(" in listing and spec.description in listing


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
async def test_garbage_arguments_never_raise(settings, spec):
    junk = {name: None for name in spec.args.model_fields}
    outcome = await spec.run(spec.args.model_construct(**junk), ToolContext(settings))
    assert isinstance(outcome, ToolOutcome) and not outcome.ok
    assert outcome.formatted and spec.name not in outcome.formatted

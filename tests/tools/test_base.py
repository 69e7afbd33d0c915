"""The tool spec is the single source of truth: everything else is derived from it."""

from __future__ import annotations

import typing

import pytest
from pydantic import ValidationError

from docgemma.tools.args import DrugInteractionArgs, DrugSafetyArgs, PrescribeMedicationArgs
from docgemma.tools.base import ToolExample, ToolOutcome, ToolRegistry, ToolSpec


async def _noop(args, ctx) -> ToolOutcome:
    return ToolOutcome(data={"ok": True})


def _spec(name: str, label: str, args=DrugSafetyArgs, writes: bool = False) -> ToolSpec:
    return ToolSpec(
        name=name,
        label=label,
        description=f"Full description of {name}.",
        short_description=f"Short {name}.",
        args=args,
        run=_noop,
        writes_ehr=writes,
        example=ToolExample(query="q", args={}),
    )


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry(
        [
            _spec("check_drug_safety", "Drug Safety Report"),
            _spec("prescribe_medication", "Prescription", PrescribeMedicationArgs, writes=True),
        ]
    )


def test_selection_model_literal_is_exactly_the_registered_names(registry: ToolRegistry) -> None:
    model = registry.selection_model()
    assert list(model.model_fields) == ["tool_name"]
    assert typing.get_args(model.model_fields["tool_name"].annotation) == (
        "check_drug_safety",
        "prescribe_medication",
    )
    with pytest.raises(ValidationError):
        model(tool_name="get_weather")


def test_labels_write_gate_and_prompt_list_are_derived(registry: ToolRegistry) -> None:
    assert registry.labels() == {
        "check_drug_safety": "Drug Safety Report",
        "prescribe_medication": "Prescription",
    }
    assert registry.write_tools() == {"prescribe_medication"}
    full = registry.describe("full")
    assert (
        "check_drug_safety(drug_name: str)" in full
        and "Full description of check_drug_safety." in full
    )
    assert "notes: " in full and "= None" in full
    assert "Short prescribe_medication." in registry.describe("short")
    assert registry.describe("names") == "Available tools: check_drug_safety, prescribe_medication"
    assert registry.label("unknown_tool") == "requested service"


def test_duplicate_and_empty_registries_are_refused(registry: ToolRegistry) -> None:
    with pytest.raises(ValueError, match="twice"):
        registry.register(_spec("check_drug_safety", "again"))
    with pytest.raises(ValueError, match="empty"):
        ToolRegistry().selection_model()


@pytest.mark.parametrize(
    ("model", "payload"),
    [
        (DrugSafetyArgs, {"drug_name": ""}),
        (DrugInteractionArgs, {"drug_names": ["warfarin"]}),
        (DrugSafetyArgs, {"drug_name": "x" * 81}),
    ],
)
def test_argument_models_reject_bad_arguments(model, payload) -> None:
    with pytest.raises(ValidationError):
        model.model_validate(payload)


def test_outcome_flags() -> None:
    assert ToolOutcome(data={"a": 1}).ok and not ToolOutcome(data={"a": 1}).empty
    assert ToolOutcome().empty
    assert not ToolOutcome(error_type="timeout").ok


def test_selection_model_is_built_once_and_rebuilt_after_a_new_tool(registry: ToolRegistry) -> None:
    first = registry.selection_model()
    assert registry.selection_model() is first  # backends cache grammars per schema class
    registry.register(_spec("search_patient", "Patient Search"))
    assert "search_patient" in typing.get_args(
        registry.selection_model().model_fields["tool_name"].annotation
    )

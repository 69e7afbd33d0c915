"""Every argument of every tool declares where its value must come from."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from docgemma.tools.grounding import Grounding, field_grounding
from docgemma.tools.registry import build_registry

REGISTRY = build_registry()


def test_every_registered_tool_argument_has_a_grounding_marker() -> None:
    for spec in build_registry():
        marks = field_grounding(spec.args)
        assert set(marks) == set(spec.args.model_fields), spec.name


def test_the_markers_say_what_the_issue_decided() -> None:
    assert field_grounding(REGISTRY["search_patient"].args) == {"name": Grounding.PERSON_NAME}
    assert field_grounding(REGISTRY["check_drug_interactions"].args) == {
        "drug_names": Grounding.DRUG
    }
    note = field_grounding(REGISTRY["save_clinical_note"].args)
    assert note["note_text"] is Grounding.DICTATED and note["patient_id"] is Grounding.PATIENT_ID
    assert note["note_type"] is Grounding.STATED


def test_a_field_without_a_marker_is_refused() -> None:
    class Unmarked(BaseModel):
        query: str

    with pytest.raises(TypeError, match=r"Unmarked\.query"):
        field_grounding(Unmarked)


def test_markers_do_not_change_the_schema_the_model_sees() -> None:
    schema = REGISTRY["prescribe_medication"].args.model_json_schema()
    assert "grounding" not in str(schema).lower() and "phrase" not in str(schema)

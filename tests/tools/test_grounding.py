"""Every argument of every tool declares where its value must come from."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from docgemma.agent.schemas import TOOL_ARG_SCHEMAS
from docgemma.tools.grounding import Grounding, field_grounding
from docgemma.tools.registry import build_registry


def test_every_registered_tool_argument_has_a_grounding_marker() -> None:
    for spec in build_registry():
        marks = field_grounding(spec.args)
        assert set(marks) == set(spec.args.model_fields), spec.name


def test_the_markers_say_what_the_issue_decided() -> None:
    assert field_grounding(TOOL_ARG_SCHEMAS["search_patient"]) == {"name": Grounding.PHRASE}
    assert field_grounding(TOOL_ARG_SCHEMAS["check_drug_interactions"]) == {
        "drug_names": Grounding.DRUG
    }
    note = field_grounding(TOOL_ARG_SCHEMAS["save_clinical_note"])
    assert note["note_text"] is Grounding.FREE and note["patient_id"] is Grounding.PATIENT_ID


def test_a_field_without_a_marker_is_refused() -> None:
    class Unmarked(BaseModel):
        query: str

    with pytest.raises(TypeError, match=r"Unmarked\.query"):
        field_grounding(Unmarked)


def test_markers_do_not_change_the_schema_the_model_sees() -> None:
    schema = TOOL_ARG_SCHEMAS["prescribe_medication"].model_json_schema()
    assert "grounding" not in str(schema).lower() and "phrase" not in str(schema)

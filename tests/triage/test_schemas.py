"""The constrained schemas: only retrieved ids, only the three severities, bounded strings."""

from __future__ import annotations

import pytest

from docgemma.llm.errors import StructuredOutputError
from docgemma.llm.schema import check_bounded, validated
from docgemma.llm.types import Generation
from docgemma.severity import Severity
from docgemma.triage.schemas import RouteDecision, as_prediction, prediction_schema


def test_prediction_schema_admits_only_retrieved_ids():
    schema = prediction_schema(("flu", "common-cold"))
    check_bounded(schema)
    ok = validated(schema, Generation(text='{"condition": "flu", "severity": "A&E"}'))
    assert as_prediction(ok.value).severity is Severity.A_AND_E
    for bad in (
        '{"condition": "migraine", "severity": "A&E"}',
        '{"condition": "flu", "severity": "GP"}',
    ):
        with pytest.raises(StructuredOutputError):
            validated(schema, Generation(text=bad))
    assert prediction_schema(("flu", "common-cold")) is schema  # one grammar per id set
    empty = prediction_schema(())
    assert empty.model_fields["condition"].annotation.__args__ == ("inconclusive",)


def test_route_decision_is_bounded():
    check_bounded(RouteDecision)

"""Start-up: ``Agent.create`` hands every response schema to the backend's ``prepare``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from pydantic import BaseModel

from docgemma.agent.schemas import (
    ImageFindings,
    IntentClassification,
    ResultAssessment,
    RetryStrategy,
)
from docgemma.agent.service import Agent
from docgemma.config import Settings
from docgemma.llm.errors import SchemaNotSupported
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.base import ToolRegistry

from .fakes import FakeTools


class FreeTextArgs(BaseModel):
    comment: str  # no max_length: a grammar could loop in it until the budget cuts it


def test_create_prepares_every_schema_the_graph_uses(settings: Settings, tools: FakeTools) -> None:
    llm = ScriptedBackend()
    registry = tools.registry()
    Agent.create(settings, llm, registry, classifiers={})
    prepared = {s.__name__ for s in llm.prepared}
    assert {
        IntentClassification.__name__,
        ResultAssessment.__name__,
        RetryStrategy.__name__,
        ImageFindings.__name__,
        "ToolSelection",
    } <= prepared
    assert {spec.args for spec in registry} <= set(llm.prepared)


def test_an_unbounded_tool_argument_fails_at_create_time(
    settings: Settings, tools: FakeTools
) -> None:
    specs = list(tools.registry())
    specs[0] = replace(specs[0], args=FreeTextArgs)
    with pytest.raises(SchemaNotSupported, match=r"FreeTextArgs.*\$\.comment"):
        Agent.create(settings, ScriptedBackend(), ToolRegistry(specs), classifiers={})


@pytest.mark.real_model
def test_real_backend_compiles_every_schema_at_create_time(
    settings: Settings, tools: FakeTools, real_llm: Any
) -> None:
    registry = tools.registry()
    Agent.create(settings, real_llm, registry, classifiers={})
    wanted = {spec.args for spec in registry} | {IntentClassification, ImageFindings}
    assert all(schema in real_llm._grammars for schema in wanted)

"""``python -m docgemma ask``: text and JSON output of one turn."""

from __future__ import annotations

import json

import pytest

import docgemma.__main__ as cli
from docgemma.agent.service import Agent
from docgemma.llm.scripted import ScriptedBackend

from .conftest import intent, quality, select


@pytest.fixture
def scripted_agent(monkeypatch, settings, tools):
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety", summary="FDA warnings"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            "Boxed warning: torsade.",
        ]
    )

    async def build(_settings, _ehr):
        return Agent.create(settings, llm, tools.registry(), classifiers={})

    monkeypatch.setattr(cli, "build_agent", build)
    return llm


def test_ask_json_prints_one_object(scripted_agent, capsys) -> None:
    assert cli.main(["ask", "Check FDA warnings for dofetilide", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["intent"] == "TOOL_NEEDED" and out["model_calls"] == 5
    assert out["tool_calls"] == [
        {
            "tool": "check_drug_safety",
            "tool_label": "Drug Safety Report",
            "args": {"drug_name": "dofetilide"},
            "result_class": "success_rich",
            "error_type": None,
        }
    ]
    assert out["clarification_asked"] is False and out["errors"] == []
    assert out["final_response"] == "Boxed warning: torsade." and len(out["timeline"]) == 6


def test_ask_text_prints_answer_and_timeline(scripted_agent, capsys) -> None:
    assert cli.main(["ask", "Check FDA warnings for dofetilide"]) == 0
    text = capsys.readouterr().out
    assert (
        text.startswith("Boxed warning: torsade.") and "✓ Consulted the Drug Safety Report" in text
    )


def test_missing_image_file_is_a_clear_error(scripted_agent, capsys) -> None:
    assert cli.main(["ask", "What is this?", "--image", "/nonexistent.png"]) == 2
    assert "image not found" in capsys.readouterr().err

"""``python -m docgemma ask``: text and JSON output of one turn."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import docgemma.__main__ as cli
from docgemma.agent.outcome import EMPTY_MESSAGE_REPLY
from docgemma.agent.rules import ATTACH_IMAGE
from docgemma.agent.service import Agent
from docgemma.llm.scripted import ScriptedBackend

from .conftest import cited, intent, quality, select


@pytest.fixture
def scripted_agent(monkeypatch, settings, tools):
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety", summary="FDA warnings"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            cited("Boxed warning: torsade.", "risk of Torsade de Pointes"),
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
    assert out["final_response"] == "Boxed warning: torsade. [1]" and len(out["timeline"]) == 7
    assert out["sources"] == [
        {"title": "Drug label", "url": "https://example.org/label", "kind": "label"}
    ]


def test_ask_text_prints_answer_and_timeline(scripted_agent, capsys) -> None:
    assert cli.main(["ask", "Check FDA warnings for dofetilide"]) == 0
    text = capsys.readouterr().out
    assert (
        text.startswith("Boxed warning: torsade. [1]")
        and "✓ Consulted the Drug Safety Report" in text
    )
    assert "Sources:\n  [1] Drug label — https://example.org/label" in text


def test_missing_image_file_is_a_clear_error(scripted_agent, capsys) -> None:
    assert cli.main(["ask", "What is this?", "--image", "/nonexistent.png"]) == 2
    assert "image not found" in capsys.readouterr().err


@pytest.mark.parametrize("question", ["", "   "])
def test_an_empty_question_is_answered_without_building_the_agent(
    monkeypatch, settings, capsys, question: str
) -> None:
    async def refuse(_settings, _ehr):
        raise AssertionError("the empty message must not build the agent")

    monkeypatch.setattr(cli, "build_agent", refuse)
    assert cli.main(["ask", question, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["final_response"] == EMPTY_MESSAGE_REPLY and out["model_calls"] == 0


def test_an_empty_question_imports_no_model_ehr_or_classifier(settings) -> None:
    """In a fresh interpreter: the reply comes before any heavy part is even imported."""
    heavy = ["llama_cpp", "docgemma.agent.service", "docgemma.ehr.runtime", "sklearn", "langgraph"]
    code = (
        "import sys, docgemma.__main__ as cli\n"
        "assert cli.main(['ask', '']) == 0\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
    )
    root = Path(cli.__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    assert done.stdout.startswith(EMPTY_MESSAGE_REPLY)
    assert done.stdout.strip().endswith("[]"), done.stdout


def test_ask_without_the_model_installed_names_the_install_command(monkeypatch, capsys) -> None:
    """A bare ``pip install .`` has no model parts: one clear line, not a failed turn."""
    monkeypatch.setenv("DOCGEMMA_BACKEND", "llamacpp")
    monkeypatch.setenv("DOCGEMMA_MODEL", "qwen2.5-0.5b")
    monkeypatch.setenv("DOCGEMMA_MODEL_CACHE_DIR", "/nonexistent")
    monkeypatch.setattr("docgemma.profiles._installed_version", lambda name: None)
    monkeypatch.setattr(cli, "build_agent", lambda *a: pytest.fail("no agent is built"))
    cli.get_settings.cache_clear()
    try:
        assert cli.main(["ask", "What is hypertension?"]) == 2
    finally:
        cli.get_settings.cache_clear()
    err = capsys.readouterr().err
    assert "is not installed" in err and "python -m docgemma.setup_assets --install" in err


@pytest.mark.parametrize(
    "question", ["Here is her ECG from this morning", "Got a portable CXR. Here it is."]
)
def test_an_image_that_is_not_attached_is_asked_for_without_a_model_call(
    monkeypatch, settings, tools, capsys, question: str
) -> None:
    llm = ScriptedBackend([])  # any model call would find nothing scripted

    async def build(_settings, _ehr):
        return Agent.create(settings, llm, tools.registry(), classifiers={})

    monkeypatch.setattr(cli, "build_agent", build)
    assert cli.main(["ask", question, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["final_response"] == ATTACH_IMAGE and out["model_calls"] == 0
    assert out["clarification_asked"] is True and llm.calls == []

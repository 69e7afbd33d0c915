"""The nine integration scenarios on the whole real stack.

Real embedded model (Gemma 3 270M, llama.cpp), default routing (embedding classifiers),
the ten real tools, the embedded FHIR server over HTTP, offline remote tools. Where code
decides (routing, the error handler, ask-user, approval, entity hints) the test asserts
the exact outcome; where only the tiny model decides (argument wording, the answer's
prose) it asserts the guarantees around it and records what the model did.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pydicom.data import get_testdata_file

from docgemma.agent.nodes.input_assembly import NO_VISION_NOTICE
from docgemma.agent.outcome import TurnResult
from docgemma.agent.rules import MAX_STEPS, MAX_TOTAL_RETRIES
from docgemma.config import Settings
from docgemma.events import (
    ApprovalRequested,
    Decision,
    NodeStarted,
    ToolCalled,
)
from docgemma.imaging import PNG_MAGIC, prepare_image

from .conftest import RecordingLLM, assert_clean_answer, patient_ids_named, search, turn, usage

pytestmark = pytest.mark.real_model

DIRECT = ["input_assembly", "intent_classify", "synthesize"]
TOOL_THEN = ["input_assembly", "intent_classify", "tool_select", "tool_execute", "result_classify"]
INSTRUCTIONS = (  # the synthesis system prompt's sentences: never shown to the clinician
    "you are a clinical decision-support assistant",
    "provide a clear, concise response to the clinician based on the information below",
    "if information was unavailable, state this clearly without speculating",
    "do not reference any system internals, tool names, or databases",
    "use standard medical terminology appropriate for a clinical audience",
)


def started(events: list) -> list[str]:
    return [e.node for e in events if isinstance(e, NodeStarted)]


def decisions(events: list, node: str) -> list[str]:
    return [e.decision for e in events if isinstance(e, Decision) and e.node == node]


def check_turn(events: list, result: TurnResult) -> None:
    """What every scenario must satisfy, whatever the model wrote."""
    assert_clean_answer(result)
    assert not result.fallback_used
    assert result.model_calls == len(usage(events)), "a constrained output failed validation"
    assert len(result.tool_calls) <= MAX_STEPS + MAX_TOTAL_RETRIES
    assert started(events).count("tool_select") <= MAX_STEPS + MAX_TOTAL_RETRIES
    flat = " ".join(result.final_response.lower().split())
    assert not [s for s in INSTRUCTIONS if s in flat], "the system prompt was echoed"


async def run_scenario(
    app_agent, real_llm, query: str, **kwargs
) -> tuple[list, TurnResult, RecordingLLM]:
    llm = RecordingLLM(real_llm)
    async with app_agent(llm) as agent:
        events, result = await turn(agent, query, **kwargs)
    check_turn(events, result)
    return events, result, llm


@pytest.mark.parametrize("query", ["Hello, how are you?", "What is hypertension?"])
async def test_direct_questions_answer_without_tools(app_agent, real_llm, query: str) -> None:
    events, result, _ = await run_scenario(app_agent, real_llm, query)
    assert result.intent == "DIRECT" and result.tool_calls == []
    assert started(events) == DIRECT and result.nodes_visited == DIRECT
    # a greeting is answered by code; a question from a passage found for it (one answer
    # call, a second to retry statements that failed their check) or declined by code
    purposes = [u.purpose for u in usage(events)]
    assert set(purposes) <= {"synthesize"} and len(purposes) <= 2


@pytest.mark.parametrize("drug", ["dofetilide", "amiodarone"])
async def test_fda_warnings_offline_take_the_unavailable_path(
    app_agent, real_llm, drug: str
) -> None:
    """No offline source has boxed warnings: the tool reports that it could not be used, the
    error handler skips it (a retry cannot help offline) and the answer says so."""
    events, result, _ = await run_scenario(app_agent, real_llm, f"Check FDA warnings for {drug}")
    assert started(events) == [*TOOL_THEN, "error_handler", "synthesize"]
    [call] = result.tool_calls
    assert (call.tool, call.args, call.error_type) == (
        "check_drug_safety",
        {"drug_name": drug},
        "out_of_service",
    )
    assert decisions(events, "router") == ["error_handler"]
    assert decisions(events, "error_handler") == ["skip", "synthesize"]  # nothing else asked
    assert "retry" not in [u.purpose for u in usage(events)]
    # one note for the one failed source: the tool's own reason, not also the generic one
    [offline_note] = result.errors
    assert offline_note.startswith("The Drug Safety Report could not be used: it needs")
    assert offline_note in result.final_response
    assert result.confidence_level == "low"


async def test_an_unavailable_source_does_not_stop_the_others(app_agent, default_llm) -> None:
    """Offline: the label lookup, unavailable offline, ended the
    turn when it came first, and the interaction check asked for in the same question
    never ran. Now the missing source is named in the answer and the other one answers.
    On the default model: the tiny test model often leaves the drug out of the label lookup."""
    events, result, _ = await run_scenario(
        app_agent,
        default_llm,
        "What are the FDA boxed warnings for warfarin? Also check its interaction with aspirin.",
    )
    label, interactions = result.tool_calls  # the label first: the order that ended the turn
    assert (label.tool, label.error_type) == ("check_drug_safety", "out_of_service")
    assert (interactions.tool, interactions.error_type) == ("check_drug_interactions", None)
    assert decisions(events, "error_handler") == ["skip", "tool_select"]
    assert started(events)[-1] == "synthesize"
    assert any(e.startswith("The Drug Safety Report could not be used") for e in result.errors)
    assert result.sources_used and "aspirin" in result.final_response
    # a source the question needed failed: the answer is never fully confident
    assert result.confidence_level == "low"


async def test_find_patient_then_chart(app_agent, real_llm, fhir: httpx.Client) -> None:
    """Both tools run in order: the router asks for the chart after the search, and code
    keeps the loop on it even when the model proposes the search again."""
    [maria] = patient_ids_named(fhir, "Maria Garcia")
    events, result, llm = await run_scenario(
        app_agent, real_llm, "Find patient Maria Garcia and check her chart"
    )
    assert [c.tool for c in result.tool_calls] == ["search_patient", "get_patient_chart"]
    search_call, chart_call = result.tool_calls
    assert search_call.args == {"name": "Maria Garcia"} and search_call.error_type is None
    assert decisions(events, "router")[0] == "tool_select"
    chart_prompts = [m for schema, m in llm.messages if schema == "PatientChartArgs"]
    assert chart_prompts and f"Detected patient ID: {maria}" in chart_prompts[-1][-1].content
    second = [*TOOL_THEN, "tool_select", "tool_execute"]
    if chart_call.args == {"patient_id": maria}:
        assert chart_call.error_type is None
        assert started(events) == [*second, "result_classify", "synthesize"]
    else:
        # The tiny test model copies the name ("Maria Garcia") instead of the hinted ID. Code never
        # reads a chart for it: validation refuses it before the call (missing ID, the
        # clinician is asked) or the chart tool refuses the malformed ID (pre-formatted
        # message); either way the error handler ends the turn.
        assert chart_call.error_type in ("missing_required_args", "invalid_args")
        executed = chart_call.error_type == "invalid_args"
        assert started(events) == [
            *second,
            *(["result_classify"] if executed else []),
            "error_handler",
            "synthesize",
        ]
        assert result.clarification_requested or any("Patient Record" in e for e in result.errors)


async def test_interactions_get_all_three_drugs(app_agent, real_llm) -> None:
    events, result, llm = await run_scenario(
        app_agent, real_llm, "Check interactions between warfarin, aspirin, and ibuprofen"
    )
    [(schema, messages)] = [(s, m) for s, m in llm.messages if s == "DrugInteractionArgs"]
    assert "Detected drug names: warfarin, aspirin, ibuprofen" in messages[-1].content
    [call] = result.tool_calls
    assert call.tool == "check_drug_interactions" and call.error_type is None
    assert {d.lower() for d in call.args["drug_names"]} == {"warfarin", "aspirin", "ibuprofen"}
    assert call.result_class in ("success_rich", "success_partial")
    assert started(events) == [*TOOL_THEN, "synthesize"]
    assert result.sources_used, "the interaction reference should be cited"


async def test_three_james_wilsons_ask_the_clinician(
    app_agent, real_llm, fhir: httpx.Client
) -> None:
    ids = patient_ids_named(fhir, "James Wilson")
    assert len(ids) == 3
    events, result, _ = await run_scenario(app_agent, real_llm, "Search for patient James Wilson")
    [call] = result.tool_calls
    assert (call.tool, call.args, call.error_type) == (
        "search_patient",
        {"name": "James Wilson"},
        "multiple_patient_matches",
    )
    assert result.clarification_requested
    assert started(events) == [*TOOL_THEN, "error_handler", "synthesize"]
    assert decisions(events, "router") == ["ask_user"] and decisions(events, "error_handler") == [
        "ask_user"
    ]
    assert sum(isinstance(e, ToolCalled) for e in events) == 1  # no retry
    assert "synthesize" not in [u.purpose for u in usage(events)]  # asked by code
    assert "3 patients matching 'James Wilson'" in result.final_response
    assert all(pid in result.final_response for pid in ids)


async def test_image_with_a_model_that_cannot_see(app_agent, real_llm, settings: Settings) -> None:
    """pydicom bundles no chest radiograph; its CT slice, rendered by the app's own intake,
    stands in. The 270M model has no vision: the turn says so and answers directly."""
    dicom = Path(get_testdata_file("CT_small.dcm", download=False)).read_bytes()
    prepared = prepare_image(dicom, settings.max_image_bytes)
    assert prepared.kind == "dicom" and prepared.data.startswith(PNG_MAGIC)
    events, result, _ = await run_scenario(
        app_agent, real_llm, "What do you see?", image=prepared.to_input()
    )
    assert NO_VISION_NOTICE in result.notices
    assert result.intent == "DIRECT" and result.tool_calls == []
    assert started(events) == DIRECT
    assert "image" not in [u.purpose for u in usage(events)]


async def test_prescription_is_proposed_and_nothing_written(
    app_agent, real_llm, fhir: httpx.Client
) -> None:
    before = search(fhir, "MedicationRequest", patient="abc-123")
    provenance_before = search(fhir, "Provenance", patient="abc-123")
    events, result, _ = await run_scenario(
        app_agent, real_llm, "Prescribe metformin 500 mg twice daily for abc-123"
    )
    pending = result.pending_approval
    assert pending is not None and pending.tool == "prescribe_medication"
    assert pending.args["patient_id"] == "abc-123"
    assert pending.args["medication_name"].lower() == "metformin"
    assert "500" in pending.args["dosage"]
    assert started(events) == ["input_assembly", "intent_classify", "tool_select", "tool_execute"]
    assert any(isinstance(e, ApprovalRequested) for e in events)
    assert not any(isinstance(e, ToolCalled) for e in events)
    assert "Nothing has been written yet" in result.final_response
    assert search(fhir, "MedicationRequest", patient="abc-123") == before
    assert search(fhir, "Provenance", patient="abc-123") == provenance_before

"""The design's unit rows for the LLM nodes, each node run alone on a scripted model.

The scripted reply plays the model; what is tested is the node around it: the prompt
it builds (full descriptions, matched example, entity hints, clinical labels), the
schema it asks for, the state it writes, and the classifier path that skips the model.
"""

from __future__ import annotations

from typing import get_args

import pytest
from langgraph.runtime import Runtime

from docgemma.agent.answer.compose import error_notes
from docgemma.agent.deps import AgentDeps
from docgemma.agent.nodes.error_handler import error_handler
from docgemma.agent.nodes.intent_classify import intent_classify
from docgemma.agent.nodes.result_classify import result_classify
from docgemma.agent.nodes.router import route_after_select
from docgemma.agent.nodes.tool_select import tool_select
from docgemma.agent.prompts import ANALYTICAL_PREFIX
from docgemma.agent.schemas import IntentClassification, ResultAssessment
from docgemma.agent.tool_run import to_result
from docgemma.agent.tracing import recorded
from docgemma.config import Settings
from docgemma.events import Decision
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.base import NO_TOOL, ToolErrorType, ToolOutcome
from docgemma.tools.outcomes import error_message
from docgemma.tools.registry import build_registry
from experiments.node_rows import NodeRow, assembled, is_correct, load_node_rows, tool_record

from .conftest import intent, quality, retry, select
from .fakes import DEFAULT_OUTCOMES, FakeTools, KeywordClassifier


def deps(settings: Settings, llm: ScriptedBackend, tools: FakeTools, **kw) -> Runtime[AgentDeps]:
    return Runtime(context=AgentDeps(settings=settings, llm=llm, registry=tools.registry(), **kw))


def rows(node: str) -> list:
    """The node rows of ``node``, shared with the real-model run (``experiments nodes``)."""
    return [pytest.param(row, id=row.id) for row in load_node_rows(node=node)]


@pytest.mark.parametrize("row", rows("intent_classify"))
async def test_intent_classify_rows(settings, tools, row: NodeRow) -> None:
    expected = row.expected
    suggested = expected.get("suggested_tool")
    llm = ScriptedBackend([intent(expected["intent"], "summary", suggested)])
    runtime = deps(settings, llm, tools)
    out = await intent_classify(await assembled(row.query, runtime), runtime)
    assert (out["intent"], out["suggested_tool"]) == (expected["intent"], suggested)
    assert is_correct(row, {"intent": out["intent"], "suggested_tool": out["suggested_tool"]})
    assert out["llm_calls"] == ["intent"] and out["nodes_visited"] == ["intent_classify"]
    call = llm.calls[0]
    assert call.schema is IntentClassification and call.temperature == 0.0
    assert (
        f"User query: {row.query}" in call.prompt
        and "DIRECT: General medical questions" in call.prompt
    )


async def test_intent_suggested_tool_outside_the_registry_is_dropped(settings, tools) -> None:
    llm = ScriptedBackend([intent("TOOL_NEEDED", "x", "fax_the_lab")])
    runtime = deps(settings, llm, tools)
    out = await intent_classify(await assembled("fax it", runtime), runtime)
    assert out["suggested_tool"] is None


async def test_intent_from_a_confident_embedding_classifier_makes_no_model_call(
    settings, tools
) -> None:
    s = settings.model_copy(
        update={"intent_classifier": "embedding", "tool_classifier": "embedding"}
    )
    clf = {
        "intent": KeywordClassifier([("warning", "TOOL_NEEDED")], "DIRECT"),
        "tool": KeywordClassifier([("warning", "check_drug_safety")], "search_patient"),
    }
    llm = ScriptedBackend()
    runtime = deps(s, llm, tools, classifiers=clf)
    out = await intent_classify(
        await assembled("Check FDA warnings for dofetilide", runtime), runtime
    )
    assert (out["intent"], out["suggested_tool"], out["llm_calls"]) == (
        "TOOL_NEEDED",
        "check_drug_safety",
        [],
    )
    assert llm.calls == []
    unsure = {"intent": KeywordClassifier([], "DIRECT", confidence=0.2)}
    llm = ScriptedBackend([intent("DIRECT")])
    runtime = deps(s, llm, tools, classifiers=unsure)
    out = await intent_classify(await assembled("Hello", runtime), runtime)
    assert out["llm_calls"] == ["intent"]  # below the threshold the model decides


@pytest.mark.parametrize("row", rows("tool_select"))
async def test_tool_select_rows(settings, tools, row: NodeRow) -> None:
    tool, args = row.expected["tool"], row.expected["args"]
    llm = ScriptedBackend([select(tool), args])
    runtime = deps(settings, llm, tools)
    state = await assembled(row.query, runtime)
    state.update(task_summary="task", suggested_tool=row.suggested_tool)
    out = await tool_select(state, runtime)
    assert (out["current_tool"], out["current_args"]) == (tool, args)
    assert is_correct(row, {"tool": out["current_tool"], "args": out["current_args"]})
    assert out["llm_calls"] == ["tool_select_1", "tool_select_2"]
    stage1, stage2 = llm.calls
    # stage 1: one enum field, full descriptions of all ten tools
    assert list(stage1.schema.model_fields) == ["tool_name"]
    assert all(spec.description in stage1.prompt for spec in runtime.context.registry)
    # the analytical prefix opens the model's turn; the clinician's message does not carry it
    assert stage1.prefix == ANALYTICAL_PREFIX and stage1.prompt.endswith(ANALYTICAL_PREFIX)
    assert all(ANALYTICAL_PREFIX not in m.content for m in stage1.messages)
    # stage 2: only the chosen tool's schema, with the code-extracted entity as a hint
    assert stage2.schema is build_registry()[tool].args and stage2.prefix == ""
    assert row.hint in stage2.prompt and stage2.temperature == 0.0


async def test_one_shot_example_is_matched_to_the_suggested_tool(settings, tools) -> None:
    llm = ScriptedBackend([select("search_patient"), {"name": "Jane Doe"}])
    runtime = deps(settings, llm, tools)
    state = await assembled("Find patient Jane Doe", runtime)
    state.update(task_summary="lookup", suggested_tool="search_patient")
    await tool_select(state, runtime)
    # the search's own example (Find patient John Smith), not the first tool's
    assert 'User: "Find patient John Smith"\nTool: search_patient' in llm.calls[0].prompt


def patient_found(tools) -> dict:
    registry = tools.registry()
    return to_result(
        registry["search_patient"],
        {"name": "Maria Garcia"},
        DEFAULT_OUTCOMES["search_patient"],
        registry.labels(),
        retry=False,
        executed=True,
    )


async def test_tool_select_re_entry_shows_earlier_results_under_labels(settings, tools) -> None:
    first = patient_found(tools)
    llm = ScriptedBackend([select("get_patient_chart"), {"patient_id": "pat-001"}])
    runtime = deps(settings, llm, tools)
    state = await assembled("Find patient Maria Garcia and check her chart", runtime)
    state.update(task_summary="t", tool_results=[first], step_count=1)
    out = await tool_select(state, runtime)
    assert out["current_args"] == {"patient_id": "pat-001"}
    assert "[Patient Search] Maria Garcia, born 1961, ID pat-001." in llm.calls[0].prompt
    assert "Detected patient ID: pat-001" in llm.calls[1].prompt
    assert "search_patient]" not in llm.calls[0].prompt.split("Example:")[1]


async def test_tool_select_none_on_re_entry_ends_the_loop_when_no_pattern_waits(
    settings, tools
) -> None:
    """The reactive "no tool" signal: checked against the task patterns, then accepted."""
    llm = ScriptedBackend([select(NO_TOOL)])
    runtime = deps(settings, llm, tools)
    state = await assembled("Find patient Maria Garcia", runtime)
    state.update(task_summary="t", tool_results=[patient_found(tools)], step_count=1)
    out = await tool_select(state, runtime)
    assert out["current_tool"] is None and await route_after_select(out) == "synthesize"
    assert NO_TOOL in get_args(llm.calls[0].schema.model_fields["tool_name"].annotation)
    assert "choose none" in llm.calls[0].prompt and len(llm.calls) == 1  # no argument call
    assert recorded(out, Decision)[0].decision == "synthesize"


async def test_tool_select_none_is_overruled_while_a_task_pattern_waits(settings, tools) -> None:
    llm = ScriptedBackend([select(NO_TOOL), {"patient_id": "pat-001"}])
    runtime = deps(settings, llm, tools)
    state = await assembled("Find patient Maria Garcia and check her chart", runtime)
    state.update(task_summary="t", tool_results=[patient_found(tools)], step_count=1)
    out = await tool_select(state, runtime)
    assert out["current_tool"] == "get_patient_chart"
    assert [d.decision for d in recorded(out, Decision)] == [NO_TOOL, "get_patient_chart"]


async def test_first_selection_cannot_answer_none(settings, tools) -> None:
    llm = ScriptedBackend([select("check_drug_safety"), {"drug_name": "dofetilide"}])
    runtime = deps(settings, llm, tools)
    state = await assembled("Check FDA warnings for dofetilide", runtime)
    await tool_select({**state, "task_summary": "t"}, runtime)
    assert NO_TOOL not in get_args(llm.calls[0].schema.model_fields["tool_name"].annotation)
    assert "choose none" not in llm.calls[0].prompt


@pytest.mark.parametrize(
    ("query", "has_image", "offered"),
    [
        # a small model chose the image tool, then asked for an image, for a prescription
        ("Start atorvastatin 20 mg once nightly for patient emartin-006.", False, False),
        ("Prescribe amlodipine 5 mg once daily.", False, False),
        ("What was his most recent QTc?", False, False),
        # a study to order is a decision, not an image to read
        ("Does she need an X-ray?", False, False),
        ("Is an MRI needed for this back pain?", False, False),
        ("What do you make of this?", True, True),  # attached
    ],
)
async def test_the_image_tool_is_offered_only_with_an_image_attached(
    settings, tools, query, has_image, offered
) -> None:
    # arguments that also make a prescription, which code proposes for an order to prescribe
    order = {"medication_name": "atorvastatin", "dosage": "20 mg", "frequency": "once nightly"}
    llm = ScriptedBackend([select("get_patient_chart"), {"patient_id": "abc-123", **order}])
    runtime = deps(settings, llm, tools)
    state = await assembled(query, runtime, has_image=has_image)
    await tool_select({**state, "task_summary": "t"}, runtime)
    choices = get_args(llm.calls[0].schema.model_fields["tool_name"].annotation)
    assert ("analyze_medical_image" in choices) is offered
    assert "analyze_medical_image" in llm.calls[0].prompt  # same listed tools: prefix reused
    assert "get_patient_chart" in choices


@pytest.mark.parametrize("row", rows("result_classify"))
async def test_result_classify_rows(settings, tools, row: NodeRow) -> None:
    registry = tools.registry()
    expected = row.expected["quality"]
    llm = ScriptedBackend([quality(expected)])
    runtime = deps(settings, llm, tools)
    record = tool_record(row, registry)
    out = await result_classify(
        {"user_query": row.query, "task_summary": "t", "tool_results": [record]}, runtime
    )
    assert (
        out["last_result_classification"] == expected
        and out["tool_results"][-1]["quality"] == expected
    )
    prompt = llm.calls[0].prompt
    assert llm.calls[0].schema is ResultAssessment
    assert f"Tool used: {registry[row.tool].label}" in prompt and row.tool not in prompt
    if row.outcome.error_type:
        assert error_message(row.outcome.error_type, registry[row.tool].label) in prompt
        assert row.outcome.error_detail not in prompt  # the raw error never reaches the model


@pytest.mark.parametrize("row", rows("error_handler"))
async def test_error_handler_rows(settings, tools, row: NodeRow) -> None:
    """Code asks or skips; only a retry style is the model's (a scripted reply here)."""
    action = row.expected["action"]
    is_retry = action.startswith("retry_")
    llm = ScriptedBackend([retry(action)] if is_retry else [])
    registry = tools.registry()
    state = {
        "user_query": row.query,
        "tool_results": [tool_record(row, registry)],
        "retry_counts": {row.tool: row.retry_count},
        "total_retries": row.retry_count,
    }
    command = await error_handler(state, deps(settings, llm, tools))
    assert recorded(command.update, Decision)[0].decision == action
    assert len(llm.calls) == int(is_retry)
    assert command.goto == ("tool_execute" if action == "retry_same" else "synthesize")


async def test_result_class_contradicting_the_tool_is_corrected(settings, tools) -> None:
    registry = tools.registry()
    failed = to_result(
        registry["check_drug_safety"],
        {"drug_name": "x"},
        ToolOutcome(error_type=ToolErrorType.TIMEOUT),
        registry.labels(),
        retry=False,
        executed=True,
    )
    runtime = deps(settings, ScriptedBackend([quality("success_rich")]), tools)
    out = await result_classify({"user_query": "q", "tool_results": [failed]}, runtime)
    assert out["last_result_classification"] == "error_retryable"
    assert "corrected" in recorded(out, Decision)[0].reason


def test_a_long_result_is_cut_visibly_not_silently(tools) -> None:
    registry = tools.registry()
    chart = "Active problems: " + "; ".join(f"problem {i}" for i in range(400))
    record = to_result(
        registry["get_patient_chart"],
        {"patient_id": "pat-001"},
        ToolOutcome(data={"patient_id": "pat-001"}, formatted=chart),
        registry.labels(),
        retry=False,
        executed=True,
    )
    text = record["formatted_result"]
    assert len(text) < len(chart) and text.startswith(chart[:1000])
    assert text.endswith("[further details omitted]")


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        (  # the tool's own pre-formatted message says more than the template
            ToolOutcome(
                error_type=ToolErrorType.INVALID_ARGS,
                error_detail="drug_names=['warfarin']",
                formatted="At least two different drug names are needed to check interactions.",
            ),
            "At least two different drug names are needed to check interactions.",
        ),
        (  # a tool name inside it is replaced by its clinical label
            ToolOutcome(
                error_type=ToolErrorType.NOT_FOUND,
                formatted="Try search_patient with the patient's name.",
            ),
            "Try Patient Search with the patient's name.",
        ),
        (  # no message of its own: the template, never the raw detail
            ToolOutcome(error_type=ToolErrorType.TIMEOUT, error_detail="ReadTimeout('openfda')"),
            error_message("timeout", "Drug Interaction Check"),
        ),
    ],
)
def test_a_failed_call_reaches_the_model_pre_formatted(tools, outcome, expected) -> None:
    registry = tools.registry()
    record = to_result(
        registry["check_drug_interactions"],
        {"drug_names": ["warfarin"]},
        outcome,
        registry.labels(),
        retry=False,
        executed=True,
    )
    assert record["formatted_result"] == expected
    assert "ReadTimeout" not in record["formatted_result"]


def test_one_note_per_failed_source_its_own_message_kept(tools) -> None:
    """The handler's generic 'currently unavailable' gives way to the tool's own reason."""
    registry = tools.registry()
    own = "The Image Analysis is unavailable: the current model reads text only."
    failed = to_result(
        registry["analyze_medical_image"],
        {"query": "bleeding?"},
        ToolOutcome(error_type=ToolErrorType.SERVICE_UNAVAILABLE, formatted=own),
        registry.labels(),
        retry=False,
        executed=True,
    )
    state = {
        "tool_results": [failed],
        "error_messages": [
            error_message("service_unavailable", "Image Analysis"),
            "The Trial Search is busy.",
        ],
    }
    assert error_notes(state) == ["The Trial Search is busy.", own]


@pytest.mark.parametrize(
    ("query", "proposed", "chosen", "args"),
    [
        (  # outside the patterns: the first tool the query asks for
            "Find patient Linda Chen, review her chart, and check the interaction between "
            "lisinopril and spironolactone.",
            "find_clinical_trials",
            "search_patient",
            {"name": "Linda Chen"},
        ),
        (  # a chart needs the patient's id: the search comes first
            "Find patient Maria Garcia, check her chart, and the FDA warnings for warfarin.",
            "get_patient_chart",
            "search_patient",
            {"name": "Maria Garcia"},
        ),
        (  # the id is known: no search by name, the chart
            "What allergies does patient emartin-006 have?",
            "search_patient",
            "get_patient_chart",
            {"patient_id": "emartin-006"},
        ),
        (  # a patient's medications are in the chart
            "Which medications is patient dnguyen-005 taking?",
            "find_clinical_trials",
            "get_patient_chart",
            {"patient_id": "dnguyen-005"},
        ),
        (  # a write the clinician asked for is kept
            "Patient dnguyen-005 is allergic to codeine; add it to his record.",
            "add_allergy",
            "add_allergy",
            {"patient_id": "dnguyen-005", "substance": "codeine", "reaction": "vomiting"},
        ),
        (  # in the patterns, not first: the model's order is kept
            "Check the FDA warnings for dofetilide and its interaction with azithromycin.",
            "check_drug_interactions",
            "check_drug_interactions",
            {"drug_names": ["dofetilide", "azithromycin"]},
        ),
        (  # code never proposes a record write the model did not
            "Start metformin 500 mg twice daily for the patient.",
            "search_medical_literature",
            "search_medical_literature",
            {"query": "metformin"},
        ),
    ],
)
async def test_first_selection_follows_the_task_patterns(
    settings, tools, query, proposed, chosen, args
) -> None:
    llm = ScriptedBackend([select(proposed), args])
    runtime = deps(settings, llm, tools)
    state = await assembled(query, runtime)
    out = await tool_select({**state, "task_summary": "t"}, runtime)
    assert out["current_tool"] == chosen and recorded(out, Decision)[-1].decision == chosen
    assert llm.calls[1].schema is tools.registry()[chosen].args


async def test_code_never_substitutes_a_record_write(settings, tools) -> None:
    """A question about prescribing orders nothing: the model's repeat is kept, not replaced
    by a write."""
    llm = ScriptedBackend([select("search_patient"), {"name": "Maria Garcia"}])
    runtime = deps(settings, llm, tools)
    query = "Find patient Maria Garcia. Should I prescribe metformin 500 mg?"
    state = await assembled(query, runtime)
    state.update(task_summary="t", tool_results=[patient_found(tools)], step_count=1)
    out = await tool_select(state, runtime)
    assert out["current_tool"] is None  # the duplicate guard ends the loop; nothing proposed
    assert all(d.decision != "prescribe_medication" for d in recorded(out, Decision))


@pytest.mark.parametrize(
    "proposed", ["prescribe_medication", "find_clinical_trials", "get_patient_chart"]
)
async def test_a_write_for_a_named_patient_not_yet_found_searches_for_the_patient_first(
    settings, tools, proposed
) -> None:
    """Whatever the model proposes, the message names the patient its order needs, so code
    finds her first (the card follows once she is known)."""
    llm = ScriptedBackend([select(proposed), {"name": "Maria Garcia"}])
    runtime = deps(settings, llm, tools)
    query = "Find patient Maria Garcia and prescribe amoxicillin 500 mg three times daily"
    state = await assembled(query, runtime)
    out = await tool_select({**state, "task_summary": "t"}, runtime)
    assert out["current_tool"] == "search_patient"
    assert llm.calls[1].schema is tools.registry()["search_patient"].args


async def test_a_write_for_no_named_patient_is_kept_for_its_own_ask_back(settings, tools) -> None:
    """No name in the message: nothing to search for; the write's missing patient is asked."""
    args = {"medication_name": "metformin", "dosage": "500 mg", "frequency": "twice daily"}
    llm = ScriptedBackend([select("prescribe_medication"), {**args, "patient_id": "abc-123"}])
    runtime = deps(settings, llm, tools)
    state = await assembled("Prescribe metformin 500 mg twice daily", runtime)
    out = await tool_select({**state, "task_summary": "t"}, runtime)
    assert out["current_tool"] == "prescribe_medication"

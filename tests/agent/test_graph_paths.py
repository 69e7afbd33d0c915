"""The design's integration rows on a scripted model: nodes hit in order, exact model calls.

Call counts with LLM classification: direct 2; one tool 5 (intent, two-stage
selection, result class, synthesis); each further tool +3; an error-handler retry
+1 for its own call plus the re-run's classification (+1 retry_same, which re-runs
the same call; +2 retry_different_args, which re-extracts the arguments first). After a
call that found nothing, code re-extracts the arguments without the retry call.
With embedding classifiers the classification calls disappear.
"""

from __future__ import annotations

import pytest

from docgemma.events import LLMUsage, NodeFinished, ToolCalled
from docgemma.llm.scripted import ScriptedBackend
from docgemma.llm.types import ImageInput
from docgemma.tools.base import ToolErrorType, ToolOutcome
from docgemma.tools.outcomes import error_message

from .conftest import NOTHING_CITED, cited, intent, prompts, quality, retry, run, select
from .fakes import KeywordClassifier

IA, IC, TS, TE, RC, EH, SY = (
    "input_assembly",
    "intent_classify",
    "tool_select",
    "tool_execute",
    "result_classify",
    "error_handler",
    "synthesize",
)


@pytest.mark.parametrize("query", ["Hello, how are you?", "What is hypertension?"])
async def test_direct_path(make_agent, tools, query) -> None:
    """Nothing looked up and nothing that may be: code answers (a greeting, a decline)."""
    llm = ScriptedBackend([intent("DIRECT", "greeting or definition")])
    events, result = await run(make_agent(llm), query)
    assert result.nodes_visited == [IA, IC, SY] and result.model_calls == 1 and tools.calls == []
    assert result.final_response and result.confidence_level == "low"
    assert [e.purpose for e in events if isinstance(e, LLMUsage)] == ["intent"]
    assert all(e.duration_s >= 0 for e in events if isinstance(e, NodeFinished))


async def test_single_tool_path(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            cited("Dofetilide carries a boxed warning.", "Boxed warning: risk of Torsade"),
        ]
    )
    events, result = await run(make_agent(llm), "Check FDA warnings for dofetilide")
    assert result.nodes_visited == [IA, IC, TS, TE, RC, SY] and result.model_calls == 5
    assert (
        "Boxed warning: risk of Torsade de Pointes" in prompts(llm)[-1]
    )  # the data reached synthesis
    assert (
        "Include only the most critical findings.\n\n" in llm.calls[-1].messages[-1].content
    )  # brief variant
    called = [e for e in events if isinstance(e, ToolCalled)]
    assert [(e.tool, e.args) for e in called] == [
        ("check_drug_safety", {"drug_name": "dofetilide"})
    ]
    assert result.confidence_level == "high" and result.sources_used[0].title == "Drug label"
    assert len(result.follow_up_questions) == 3


async def test_multi_tool_path(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="search_patient"),
            select("search_patient"),
            {"name": "Maria Garcia"},
            quality("success_rich"),
            select("get_patient_chart"),
            {"patient_id": "pat-001"},
            quality("success_rich"),
            NOTHING_CITED,
        ]
    )
    _, result = await run(make_agent(llm), "Find patient Maria Garcia and check her chart")
    assert result.nodes_visited == [IA, IC, TS, TE, RC, TS, TE, RC, SY]
    assert result.model_calls == 5 + 3
    assert [c.tool for c in result.tool_calls] == ["search_patient", "get_patient_chart"]
    assert result.active_patient_id == "pat-001"  # the page shows whom the agent found


CHART = "Conditions: type 2 diabetes. Medications: metformin 500 mg."
"""The fake chart read's text."""


async def test_a_chart_read_by_a_typed_id_makes_that_patient_active(make_agent, tools) -> None:
    """After "Show the chart of abc-123", "her allergies?" must mean abc-123."""
    llm = ScriptedBackend(
        [
            intent(tool="get_patient_chart"),
            select("get_patient_chart"),
            {"patient_id": "abc-123"},
            quality("success_rich"),
        ]
    )
    _, result = await run(make_agent(llm), "Show me the chart of abc-123")
    assert result.active_patient_id == "abc-123"


@pytest.mark.parametrize(
    ("query", "by_code"),
    [
        ("Show me the chart of abc-123", True),
        ("Pull up the record of patient abc-123.", True),
        ("Show me the chart of abc-123 and tell me if her potassium is high", False),
        ("Check the chart of abc-123 for allergies", False),
    ],
)
async def test_a_request_only_to_see_the_chart_is_answered_with_the_chart(
    make_agent, tools, query: str, by_code: bool
) -> None:
    """Seen in the app: "Show me the chart of abc-123" was answered "Here is the chart of
    abc-123 [1]." and nothing else. The chart is the answer, without a model call."""
    draft = "Her medications: metformin 500 mg."
    said = cited(draft, "Medications: metformin 500 mg.")
    replies = [
        intent(tool="get_patient_chart"),
        select("get_patient_chart"),
        {"patient_id": "abc-123"},
        quality("success_rich"),
    ]
    llm = ScriptedBackend([*replies, said])
    _, result = await run(make_agent(llm), query)
    assert result.final_response == (CHART if by_code else f"{draft} [1]")
    written = [c for c in llm.calls if c.schema and "statements" in c.schema.model_fields]
    assert len(written) == (0 if by_code else 1)


@pytest.mark.parametrize(
    "query",
    [
        "Does any of her medication interact with aspirin?",
        "Check her chart and her medication for interactions with aspirin",
    ],
)
async def test_an_asked_interaction_check_is_the_answer_not_the_chart_read_beside_it(
    make_agent, tools, query: str
) -> None:
    """The chart gave the check its drugs; quoted, it answered with its other lines."""
    replies = [
        intent(tool="check_drug_interactions"),
        select("check_drug_interactions"),
        {"drug_names": ["aspirin", "warfarin"]},
        quality("success_rich"),
        select("get_patient_chart"),
        {"patient_id": "abc-123"},
        quality("success_rich"),
        cited("Aspirin with warfarin raises bleeding risk.", "warfarin + aspirin"),
    ]

    async def summary(pid: str) -> str | None:
        return "Patient: Ann Lee (ID abc-123)\nActive medications: warfarin 5 mg once daily"

    llm = ScriptedBackend(replies)
    agent = make_agent(llm, patient_summary=summary)
    _, result = await run(agent, query, patient_id="abc-123")
    assert [c.tool for c in result.tool_calls] == ["check_drug_interactions", "get_patient_chart"]
    assert CHART not in prompts(llm)[-1]
    assert "warfarin + aspirin raise bleeding risk" in prompts(llm)[-1]
    assert result.final_response == "Aspirin with warfarin raises bleeding risk. [1]"
    assert [s.kind for s in result.sources_used] != ["ehr"]


async def test_a_chart_read_that_found_nobody_changes_no_active_patient(make_agent, tools) -> None:
    tools.queue("get_patient_chart", ToolOutcome(error_type=ToolErrorType.NOT_FOUND))
    llm = ScriptedBackend(
        [
            intent(tool="get_patient_chart"),
            select("get_patient_chart"),
            {"patient_id": "zzz-999"},
            quality("no_results"),
        ]
    )
    _, result = await run(make_agent(llm), "Show me the chart of zzz-999")
    assert "could not find a patient with ID 'zzz-999'" in result.final_response
    assert result.active_patient_id is None


async def test_single_tool_with_three_drugs(make_agent, tools) -> None:
    drugs = ["warfarin", "aspirin", "ibuprofen"]
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_interactions"),
            select("check_drug_interactions"),
            {"drug_names": drugs},
            quality("success_rich"),
            NOTHING_CITED,
        ]
    )
    _, result = await run(
        make_agent(llm), "Check interactions between warfarin, aspirin, and ibuprofen"
    )
    assert result.nodes_visited == [IA, IC, TS, TE, RC, SY] and result.model_calls == 5
    assert tools.calls_to("check_drug_interactions")[0][0] == {"drug_names": drugs}


async def test_timeout_then_retry_same(make_agent, tools, settings) -> None:
    settings.tool_timeout_s = 0.05
    tools.queue("check_drug_safety", 1.0)  # the first call sleeps past the deadline
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "amiodarone"},
            quality("error_retryable"),
            retry("retry_same"),
            quality("success_rich"),
            NOTHING_CITED,
        ]
    )
    _, result = await run(make_agent(llm), "Check FDA warnings for amiodarone")
    assert result.nodes_visited == [IA, IC, TS, TE, RC, EH, TE, RC, SY]  # 9 nodes, as designed
    assert result.model_calls == 5 + 1 + 1
    assert len(tools.calls_to("check_drug_safety")) == 2 and result.errors == []
    assert error_message("timeout", "Drug Safety Report") in prompts(llm)[3]


async def test_retry_with_different_arguments_re_extracts_only(make_agent, tools) -> None:
    tools.queue(
        "search_medical_literature", ToolOutcome(error_type="not_found", entity="dofetilde")
    )
    llm = ScriptedBackend(
        [
            intent(tool="search_medical_literature"),
            select("search_medical_literature"),
            {"query": "dofetilde"},
            quality("error_fatal"),
            {"query": "dofetilide"},
            quality("success_partial"),
            NOTHING_CITED,
        ]
    )
    _, result = await run(make_agent(llm), "Find studies on dofetilide")  # the model misspells
    assert result.nodes_visited == [IA, IC, TS, TE, RC, EH, TS, TE, RC, SY]
    assert result.model_calls == 5 + 2  # found nothing: no call to choose how to retry
    assert (
        "did not work" in prompts(llm)[4] and llm.calls[4].schema.__name__ == "LiteratureSearchArgs"
    )


async def test_an_ambiguous_drug_name_asks_which_product(make_agent, tools) -> None:
    """The ask-user rule, fired by what the drug tool now reports."""
    tools.queue(
        "check_drug_safety",
        ToolOutcome(
            error_type=ToolErrorType.AMBIGUOUS_DRUG_NAME,
            entity="Advil",
            suggestions=["ibuprofen and diphenhydramine", "ibuprofen and pseudoephedrine"],
        ),
    )
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "Advil"},
            quality("error_fatal"),
        ]
    )
    _, result = await run(make_agent(llm), "Check FDA warnings for Advil")
    assert result.clarification_requested and result.nodes_visited[-2:] == [EH, SY]
    assert result.final_response == (
        "Did you mean ibuprofen and diphenhydramine or ibuprofen and pseudoephedrine?"
    )
    assert len(tools.calls_to("check_drug_safety")) == 1  # asked, not retried


async def test_three_patient_matches_ask_the_user(make_agent, tools) -> None:
    tools.queue(
        "search_patient",
        ToolOutcome(
            data={"patients": [{"id": f"p{i}"} for i in range(3)]},
            formatted="3 patients named James Wilson",
            patient_matches=3,
            entity="James Wilson",
            suggestions=["p0 (b. 1950)", "p1", "p2"],
        ),
    )
    llm = ScriptedBackend(
        [
            intent(tool="search_patient"),
            select("search_patient"),
            {"name": "James Wilson"},
            quality("success_partial"),
        ]
    )
    _, result = await run(make_agent(llm), "Search for patient James Wilson")
    assert result.nodes_visited == [IA, IC, TS, TE, RC, EH, SY] and result.model_calls == 4
    assert result.clarification_requested
    assert result.final_response.startswith(
        "I found 3 patients matching 'James Wilson'. Which one did you mean?"
    )
    assert len(tools.calls_to("search_patient")) == 1  # asked, not retried
    assert result.active_patient_id is None  # three matches: nobody is picked


async def test_image_with_vision_backend_goes_direct_with_findings(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            {
                "modality": "X-ray",
                "findings": ["right lower lobe consolidation"],
                "confidence": 0.8,
            },
            intent("DIRECT", "describe chest X-ray"),
            cited(
                "The image shows right lower lobe consolidation.", "right lower lobe consolidation"
            ),
        ],
        supports_vision=True,
    )
    agent = make_agent(llm)
    _, result = await run(agent, "What do you see?", image=ImageInput(data=b"\x89PNG fake"))
    assert result.nodes_visited == [IA, IC, SY] and result.model_calls == 3
    assert llm.calls[0].messages[-1].images and "right lower lobe consolidation" in prompts(llm)[-1]
    # the findings are carried into the next turn of the same thread
    llm.queue(intent("DIRECT", "follow-up"), NOTHING_CITED)
    _, second = await run(agent, "Could that be pneumonia?")
    assert second.model_calls == 2 and "right lower lobe consolidation" in prompts(llm)[-1]


async def test_image_findings_reach_every_downstream_prompt(make_agent, tools) -> None:
    """The model calls of a one-tool turn: intent, tool (both stages), result class, synthesis."""
    findings = {"modality": "X-ray", "findings": ["left apical mass"], "confidence": 0.7}
    llm = ScriptedBackend(
        [
            findings,
            intent(tool="search_medical_literature"),
            select("search_medical_literature"),
            {"query": "apical lung mass"},
            quality("success_rich"),
            cited("The image shows a left apical mass.", "left apical mass"),
        ],
        supports_vision=True,
    )
    _, result = await run(
        make_agent(llm), "Find literature on this finding", image=ImageInput(data=b"\x89PNG")
    )
    asked = [c.schema.__name__ if c.schema else "text" for c in llm.calls]
    assert asked[1:] == [
        "IntentClassification",
        "ToolSelection",
        "LiteratureSearchArgs",
        "ResultAssessment",
        "CitedAnswer",
    ]
    assert tools.calls_to("search_medical_literature")[0][0] == {"query": "apical lung mass"}
    seen = [
        "Image findings (X-ray, confidence 0.70):\n- left apical mass" in p for p in prompts(llm)
    ]
    assert all(seen[1:-1]) and "left apical mass" in prompts(llm)[-1]
    assert result.final_response == "The image shows a left apical mass. [2]"


async def test_image_without_vision_backend_says_so(make_agent, tools) -> None:
    llm = ScriptedBackend([intent("DIRECT")])
    _, result = await run(make_agent(llm), "What do you see?", image=b"\x89PNG fake")
    assert result.model_calls == 1 and any("cannot read images" in n for n in result.notices)


async def test_embedding_classifiers_remove_the_classification_calls(
    make_agent, tools, settings
) -> None:
    settings.intent_classifier = settings.tool_classifier = settings.result_classifier = "embedding"
    classifiers = {
        "intent": KeywordClassifier([("warning", "TOOL_NEEDED")], "DIRECT"),
        "tool": KeywordClassifier([("warning", "check_drug_safety")], "search_patient"),
        "result": KeywordClassifier([("boxed warning", "success_rich")], "no_results"),
    }
    llm = ScriptedBackend([{"drug_name": "dofetilide"}, NOTHING_CITED])
    _, result = await run(
        make_agent(llm, classifiers=classifiers), "Check FDA warnings for dofetilide"
    )
    assert result.nodes_visited == [IA, IC, TS, TE, RC, SY]
    assert result.model_calls == 2  # stage-2 arguments and synthesis only
    _, direct = await run(make_agent(llm, classifiers=classifiers), "Hello, how are you?")
    assert direct.model_calls == 0  # classified by embeddings, answered by code

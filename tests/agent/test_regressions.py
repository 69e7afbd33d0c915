"""The design's regression rows: the anti-patterns the design exists to prevent."""

from __future__ import annotations

import re

import httpx
import pytest
from scripted_quotes import answering

from docgemma.agent.answer.compose import FALLBACK_MESSAGE, NO_SOURCE
from docgemma.agent.service import Agent
from docgemma.events import Decision
from docgemma.llm.errors import ModelUnavailable
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.base import ToolErrorType, ToolOutcome
from docgemma.tools.http import USER_AGENT, CircuitBreaker, attach_breaker
from docgemma.tools.outcomes import error_message
from docgemma.tools.registry import build_registry

from .conftest import intent, prompts, quality, retry, run, select

MULTI = [
    intent(tool="search_patient"),
    select("search_patient"),
    {"name": "John Smith"},
    quality("success_rich"),
    select("get_patient_chart"),
    {"patient_id": "pat-001"},
    quality("success_rich"),
    select("check_drug_safety"),
    {"drug_name": "metformin"},
    quality("success_rich"),
    {"statements": []},
]
MULTI_QUERY = "Find patient John Smith, check his chart, and verify metformin safety"
SUFFICIENCY = re.compile(
    r"\benough\b|sufficien|anything else|more information needed|are you done", re.I
)
PLANNING = re.compile(r"\bplan\b|all (the )?steps|list of steps|decompos|sub-?tasks", re.I)


async def scenario_prompts(make_agent, tools, settings) -> list[str]:
    """Every prompt of five representative turns (direct, multi-tool, retry, ask-user, write)."""
    settings.tool_timeout_s = 0.05
    tools.queue("check_drug_safety", 1.0)
    tools.queue(
        "search_patient",
        ToolOutcome(data={"patients": [{"id": "a"}, {"id": "b"}]}, patient_matches=2),
    )
    llm = ScriptedBackend(
        [
            intent("DIRECT"),
            intent(tool="search_patient"),
            select("search_patient"),
            {"name": "James Wilson"},
            quality("success_partial"),
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "amiodarone"},
            quality("error_retryable"),
            retry(),
            quality("success_rich"),
            {"statements": []},
            *MULTI,
        ]
    )
    agent = make_agent(llm)
    for i, q in enumerate(
        [
            "What is hypertension?",  # a greeting alone is answered by code, without a prompt
            "Search for patient James Wilson",
            "Check FDA warnings for amiodarone",
            MULTI_QUERY,
        ]
    ):
        await run(agent, q, thread=f"t{i}")
    return prompts(llm)


async def test_model_is_never_asked_about_sufficiency_or_to_plan(
    make_agent, tools, settings
) -> None:
    sent = await scenario_prompts(make_agent, tools, settings)
    assert len(sent) == 1 + 4 + 7 + len(MULTI)  # a greeting is answered by code
    for prompt in sent:
        assert not SUFFICIENCY.search(prompt), prompt
        assert not PLANNING.search(prompt), prompt


async def test_multi_tool_query_is_reactive_one_tool_per_selection(make_agent, tools) -> None:
    llm = ScriptedBackend(list(MULTI))
    _, result = await run(make_agent(llm), MULTI_QUERY)
    schemas = [c.schema.__name__ for c in llm.calls if c.schema]
    assert schemas.count("ToolSelection") == 3 == len(result.tool_calls)
    stage1 = [c.schema for c in llm.calls if c.schema and c.schema.__name__ == "ToolSelection"]
    assert all(list(schema.model_fields) == ["tool_name"] for schema in stage1)
    # no schema the model fills has room for a multi-step plan
    assert not any(
        f in c.schema.model_fields
        for c in llm.calls
        if c.schema
        for f in ("steps", "plan", "subtasks")
    )


async def test_multiple_patient_matches_ask_the_user_never_retry(make_agent, tools) -> None:
    tools.queue(
        "search_patient",
        ToolOutcome(
            error_type=ToolErrorType.MULTIPLE_PATIENT_MATCHES,
            entity="James Wilson",
            suggestions=["a", "b"],
        ),
    )
    llm = ScriptedBackend(
        [
            intent(tool="search_patient"),
            select("search_patient"),
            {"name": "James Wilson"},
            quality("error_fatal"),
        ]
    )
    _, result = await run(make_agent(llm), "Search for patient James Wilson")
    assert result.clarification_requested and "Which one did you mean?" in result.final_response
    assert not any(c.schema and c.schema.__name__ == "RetryStrategy" for c in llm.calls)
    assert len(tools.calls_to("search_patient")) == 1


@pytest.mark.parametrize(
    ("failure", "error_type"),
    [
        (
            RuntimeError(
                "HTTPStatusError 503 at https://api.fda.gov/drug/label.json?search=secret"
            ),
            "server_error",
        ),
        (
            ToolOutcome(
                error_type=ToolErrorType.SERVICE_UNAVAILABLE,
                error_detail="ConnectError: [Errno 111] refused",
            ),
            "service_unavailable",
        ),
    ],
)
async def test_tool_error_reaches_synthesis_only_pre_formatted(
    make_agent, tools, failure, error_type
) -> None:
    tools.queue("check_drug_safety", failure, failure, failure)
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("error_retryable"),
            retry(),
            quality("error_retryable"),
            retry(),
            quality("error_retryable"),
        ]
    )
    _, result = await run(make_agent(llm), "Check FDA warnings for dofetilide")
    formatted = error_message(error_type, "Drug Safety Report")
    # nothing was retrieved: code says so, and the model is not asked to write
    assert llm.calls[-1].schema is not None and "quality" in llm.calls[-1].schema.model_fields
    for prompt in prompts(llm):
        assert (
            "api.fda.gov" not in prompt
            and "Errno" not in prompt
            and "HTTPStatusError" not in prompt
        )
    assert (
        formatted in result.final_response
        or "Unable to complete the Drug Safety Report" in result.final_response
    )
    assert result.errors and all("fda.gov" not in e for e in result.errors)
    assert result.confidence_level == "low"


async def test_tool_names_are_scrubbed_from_the_answer(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            answering(
                (
                    "risk of Torsade de Pointes",
                    "According to [check_drug_safety] via get_patient_chart: "
                    "Torsade de Pointes risk.",
                )
            ),
        ]
    )
    _, result = await run(make_agent(llm), "Check FDA warnings for dofetilide")
    assert result.final_response == (
        "According to Drug Safety Report via Patient Record: Torsade de Pointes risk. [1]"
    )


@pytest.mark.parametrize("empty", ["", "   \n", "<end_of_turn>"])
async def test_empty_model_output_gets_a_decline_never_an_empty_bubble(
    make_agent, tools, empty
) -> None:
    """An empty statement, twice (the draft and its retry): code answers that the sources
    found do not answer the question, and says what was searched."""
    blank = answering(("risk of Torsade", empty))
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            blank,
            blank,
        ]
    )
    _, tool_turn = await run(make_agent(llm), "Check FDA warnings for dofetilide")
    assert tool_turn.final_response.startswith("The sources I found do not answer")
    assert "Searched: Drug Safety Report (dofetilide)" in tool_turn.final_response
    assert tool_turn.left_out == ["", ""] or len(tool_turn.left_out) == 2
    _, direct = await run(make_agent(ScriptedBackend([intent("DIRECT")])), "What is hypertension?")
    assert direct.final_response.startswith(NO_SOURCE)


async def test_model_unavailable_at_the_start_gives_the_prewritten_message(
    make_agent, tools
) -> None:
    _, result = await run(
        make_agent(ScriptedBackend([ModelUnavailable("503 overloaded")])), "What is hypertension?"
    )
    assert (
        result.final_response == FALLBACK_MESSAGE
        and result.fallback_used
        and result.model_calls == 1
    )


async def test_model_unavailable_at_synthesis_keeps_the_tool_results(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            ModelUnavailable("timeout"),
        ]
    )
    _, result = await run(make_agent(llm), "Check FDA warnings for dofetilide")
    assert (
        result.final_response.startswith(FALLBACK_MESSAGE)
        and "Torsade de Pointes" in result.final_response
    )
    assert result.fallback_used


async def test_invalid_structured_output_twice_falls_back(make_agent, tools) -> None:
    llm = ScriptedBackend([intent(tool="check_drug_safety"), "{not json", '{"tool_name": "fax"}'])
    _, result = await run(make_agent(llm), "Check FDA warnings for dofetilide")
    assert result.fallback_used and result.final_response == FALLBACK_MESSAGE
    assert result.model_calls == 3 and tools.calls == []
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            "{oops",
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            {"statements": []},
        ]
    )
    _, repaired = await run(make_agent(llm), "Check FDA warnings for dofetilide")
    assert not repaired.fallback_used and repaired.model_calls == 6  # one repair call


async def test_backend_error_text_never_reaches_the_trace(make_agent, tools) -> None:
    raw = "http://10.0.0.7:8000/v1 unavailable after 3 attempt(s): HTTP 500: Traceback"
    llm = ScriptedBackend([ModelUnavailable(raw)])
    events, result = await run(make_agent(llm), "What is hypertension?")
    shown = [*(e.model_dump_json() for e in events), result.model_dump_json()]
    assert result.fallback_used and not any("10.0.0.7" in s or "Traceback" in s for s in shown)


async def test_an_identical_call_that_found_nothing_is_not_repeated(make_agent, tools) -> None:
    """The same failed search must not run three times; now the model may not even try twice."""
    tools.queue("search_medical_literature", ToolOutcome(error_type=ToolErrorType.NOT_FOUND))
    llm = ScriptedBackend(
        [
            intent(tool="search_medical_literature"),
            select("search_medical_literature"),
            {"query": "zzz syndrome"},
            quality("no_results"),
            {"query": "zzz syndrome"},  # code re-extracts; the identical arguments are refused
            "Nothing was found on zzz syndrome.",
        ]
    )
    _, result = await run(make_agent(llm), "Find studies on zzz syndrome")
    assert len(tools.calls_to("search_medical_literature")) == 1
    assert result.nodes_visited[-3:] == ["error_handler", "tool_select", "synthesize"]
    assert "No results were found" in prompts(llm)[-1]


async def test_a_list_of_drugs_in_a_single_drug_field_looks_up_the_drug_meant(
    make_agent, tools
) -> None:
    """A list of drugs in the label search's one-drug field found nothing, and the turn
    ended without an answer."""
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide, azithromycin"},
            quality("success_rich"),
            {"statements": []},
        ]
    )
    query = "Check the FDA warnings for dofetilide; she also takes azithromycin."
    events, _ = await run(make_agent(llm), query)
    assert tools.calls_to("check_drug_safety")[0][0] == {"drug_name": "dofetilide"}
    narrowed = [e for e in events if isinstance(e, Decision) and e.decision == "narrow_args"]
    assert len(narrowed) == 1 and "drug_name: dofetilide" in narrowed[0].reason


async def test_a_condition_is_no_drug_and_a_drug_no_condition_of_the_trials_asked_for(
    make_agent, tools
) -> None:
    """Asked for "the FDA warnings for dofetilide, its
    interaction with azithromycin, and trials in atrial fibrillation", the interaction check
    got atrial fibrillation as a drug and the trial search dofetilide as its condition."""
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            select("check_drug_interactions"),
            {"drug_names": ["dofetilide", "azithromycin", "atrial fibrillation"]},
            quality("success_rich"),
            select("find_clinical_trials"),
            {"condition": "dofetilide"},
            quality("success_rich"),
            {"statements": []},
        ]
    )
    query = (
        "Check the FDA warnings for dofetilide, its interaction with azithromycin, "
        "and trials in atrial fibrillation."
    )
    events, _ = await run(make_agent(llm), query)
    assert tools.calls_to("check_drug_interactions")[0][0] == {
        "drug_names": ["dofetilide", "azithromycin"]
    }
    assert tools.calls_to("find_clinical_trials")[0][0] == {"condition": "atrial fibrillation"}
    said = {e.decision: e.reason for e in events if isinstance(e, Decision)}
    assert "atrial fibrillation from drug_names" in said["prune_args"]
    assert "condition: atrial fibrillation" in said["narrow_args"]


@pytest.mark.parametrize("proposal", ["check_drug_safety", "check_drug_interactions"])
async def test_a_failed_first_tool_does_not_end_a_multi_tool_turn(
    make_agent, tools, settings, proposal
) -> None:
    """Offline, the label lookup was unavailable and the turn ended,
    so the interaction check the same question asked for never ran. The model proposing the
    tool given up on again is overruled."""
    tools.queue(
        "check_drug_safety",
        ToolOutcome(error_type=ToolErrorType.OUT_OF_SERVICE, entity="dofetilide"),
    )
    tools.queue(
        "check_drug_interactions",
        ToolOutcome(formatted="Dofetilide + azithromycin: additive QT prolongation."),
    )
    said = answering(("additive QT prolongation", "Expect additive QT prolongation."))
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("error_retryable"),
            select(proposal),
            {"drug_names": ["dofetilide", "azithromycin"]},
            quality("success_rich"),
            said,
        ]
    )
    query = "Check the FDA warnings for dofetilide and its interaction with azithromycin"
    events, result = await run(make_agent(llm), query)
    assert len(tools.calls_to("check_drug_safety")) == 1
    assert tools.calls_to("check_drug_interactions")[0][0] == {
        "drug_names": ["dofetilide", "azithromycin"]
    }
    assert result.nodes_visited[-5:] == [
        "error_handler",
        "tool_select",
        "tool_execute",
        "result_classify",
        "synthesize",
    ]
    onward = [e for e in events if isinstance(e, Decision) and e.node == "error_handler"]
    assert [e.decision for e in onward] == ["skip", "tool_select"]
    assert "additive QT prolongation" in result.final_response
    unavailable = error_message(ToolErrorType.OUT_OF_SERVICE, "Drug Safety Report")
    assert f"Note: {unavailable}" in result.final_response  # the lost part is said, not hidden


@pytest.mark.parametrize(
    ("cooldown_s", "retried"), [(300.0, False), (0.0, True)], ids=["breaker-open", "no-breaker"]
)
async def test_an_unreachable_source_is_retried_only_when_a_retry_can_reach_it(
    settings, cooldown_s, retried
) -> None:
    """With openFDA unreachable and its circuit breaker open, the model was still
    asked how to retry, and the retry failed without a request: a wasted model call. The
    real tool and HTTP client run here; only the transport refuses to connect."""

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("no route to host", request=request)

    settings.offline = False
    replies = [
        intent(tool="check_drug_safety"),
        select("check_drug_safety"),
        {"drug_name": "dofetilide"},
        quality("error_retryable"),
    ]
    if retried:
        replies += [retry(), quality("error_retryable")]
    llm = ScriptedBackend([*replies, "The FDA label could not be reached."])
    client = httpx.AsyncClient(
        transport=httpx.MockTransport(refuse), headers={"User-Agent": USER_AGENT}
    )
    async with attach_breaker(client, CircuitBreaker(cooldown_s)) as http:
        agent = Agent.create(settings, llm, build_registry(), classifiers={}, http=http)
        events, result = await run(agent, "Check FDA warnings for dofetilide")
    asked = [c.schema.__name__ for c in llm.calls if c.schema]
    assert ("RetryStrategy" in asked) is retried
    handled = [e.decision for e in events if isinstance(e, Decision) and e.node == "error_handler"]
    assert handled[-2:] == ["skip", "synthesize"]
    assert "cannot be reached" in result.final_response

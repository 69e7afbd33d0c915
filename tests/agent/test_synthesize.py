"""The answer on a scripted model: cited statements checked by code, or a plain decline.

What the clinician sees streams only after its check; confidence follows the grounding.
"""

from __future__ import annotations

import pytest
from scripted_quotes import answering

from docgemma.agent.answer.compose import UNVERIFIED_NOTE
from docgemma.agent.knowledge import Grounding
from docgemma.agent.nodes.synthesize import read_for_a_case
from docgemma.events import AnswerToken, ThinkingToken
from docgemma.llm.scripted import ScriptedBackend
from docgemma.red_flags.match import unnegated
from docgemma.tools.base import Passage, Source, ToolOutcome

from .conftest import intent, quality, run, select

LABEL = ToolOutcome(
    formatted="Boxed warning: risk of Torsade de Pointes. Start only with ECG monitoring "
    "for at least 3 days in a facility.",
    sources=[Source(title="FDA drug label: dofetilide", url="https://label.example", kind="label")],
)
GOOD = ("risk of Torsade de Pointes", "Dofetilide carries a boxed warning for Torsade de Pointes.")
WRONG_DOSE = ("ECG monitoring for at least 3 days", "Monitor the ECG for at least 30 days.")
INVENTED = ("risk of Torsade de Pointes", "It does not interact with warfarin, so it is safe.")
FIXED = ("ECG monitoring for at least 3 days", "Start it with ECG monitoring for at least 3 days.")


def lookup(*answers: object) -> ScriptedBackend:
    return ScriptedBackend(
        [
            intent("TOOL_NEEDED", "dofetilide warnings"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            *answers,
        ]
    )


def streamed(events: list[object]) -> str:
    return "".join(e.text for e in events if isinstance(e, AnswerToken))


async def test_verified_statements_stream_with_their_markers_at_high_confidence(
    make_agent, tools
) -> None:
    tools.queue("check_drug_safety", LABEL)
    llm = lookup(answering(GOOD))
    events, result = await run(make_agent(llm), "FDA warnings for dofetilide?")
    assert result.final_response == GOOD[1] + " [1]" == streamed(events)
    assert result.confidence_level == "high"
    assert result.confidence_reason == "every statement cited and its quote verified"
    assert [s.title for s in result.sources_used] == ["FDA drug label: dofetilide"]
    assert "[1] FDA drug label: dofetilide" in llm.calls[-1].prompt
    assert result.reasoning_timeline[-1].title == "Confidence: high"
    (shown,) = result.cited  # what a reviewer reads: the statement beside its verified quote
    assert (shown.text, shown.sources) == (GOOD[1], [1])
    assert shown.quote == "Boxed warning: risk of Torsade de Pointes."


async def test_a_failed_statement_is_retried_once_and_never_shown(make_agent, tools) -> None:
    tools.queue("check_drug_safety", LABEL)
    llm = lookup(answering(GOOD, WRONG_DOSE), answering(FIXED))
    events, result = await run(make_agent(llm), "FDA warnings for dofetilide?")
    retry = llm.calls[-1].messages[-1].content
    assert "Monitor the ECG for at least 30 days." in retry and "30" in retry
    assert "30 days" not in streamed(events) and "30 days" not in result.final_response
    assert result.final_response == f"- {GOOD[1]} [1]\n- {FIXED[1]} [1]"
    assert result.left_out == [WRONG_DOSE[1]]
    assert result.confidence_level == "medium"
    assert result.model_calls == 6


async def test_a_reference_the_source_could_not_reach_is_noted_and_lowers_confidence(
    make_agent, tools
) -> None:
    away = "the FDA drug labels (openFDA could not be reached)"
    tools.queue("check_drug_safety", LABEL.model_copy(update={"not_consulted": [away]}))
    _, result = await run(make_agent(lookup(answering(GOOD))), "FDA warnings for dofetilide?")
    assert result.final_response.startswith(GOOD[1] + " [1]")
    assert f"could not consult {away}; it rests on the other references." in result.final_response
    assert result.confidence_level == "medium"


async def test_when_every_statement_fails_twice_the_answer_declines(make_agent, tools) -> None:
    tools.queue("check_drug_safety", LABEL)
    llm = lookup(answering(INVENTED), answering(INVENTED))
    events, result = await run(make_agent(llm), "Is dofetilide safe to give with warfarin?")
    answer = result.final_response
    assert "It is safe" not in answer and "It is safe" not in streamed(events)
    assert answer.startswith("The sources I found do not answer this question")
    assert "Searched: Drug Safety Report (dofetilide)" in answer
    assert "[1] FDA drug label: dofetilide" in answer
    assert result.confidence_level == "low"
    assert result.confidence_reason == "not grounded in a source"


async def test_a_direct_question_no_source_covers_is_declined_without_the_model(
    make_agent,
) -> None:
    llm = ScriptedBackend([intent("DIRECT", "diaphragm innervation")])
    events, result = await run(make_agent(llm), "Which nerve innervates the diaphragm?")
    assert result.final_response.startswith("I found no source that answers this question")
    assert "show unverified answer" in result.final_response
    assert result.confidence_level == "low" and result.model_calls == 1
    assert streamed(events) == result.final_response


async def test_a_direct_question_is_answered_from_the_passage_the_code_found(make_agent) -> None:
    page = "Croup causes a barking cough and noisy breathing, worse at night."

    async def knowledge(question: str) -> Grounding:
        return Grounding("Croup", page, 0.7, "Croup — demonstration page", kind="reference")

    said = answering(("a barking cough", "Croup causes a barking cough."))
    llm = ScriptedBackend([intent("DIRECT"), said])
    _, result = await run(make_agent(llm, knowledge=knowledge), "What are the signs of croup?")
    assert result.final_response == "Croup causes a barking cough. [1]"
    assert result.sources_used[0].title == "Croup — demonstration page"
    assert result.confidence_level == "high"


async def test_the_unverified_answer_appears_only_when_asked_for(make_agent) -> None:
    llm = ScriptedBackend([intent("DIRECT"), "The phrenic nerve, roots C3 to C5."])
    _, result = await run(
        make_agent(llm), "Which nerve innervates the diaphragm?", show_unverified=True
    )
    decline, note, own = result.final_response.split("\n\n")
    assert decline.startswith("I found no source") and "show unverified" not in decline
    assert note == UNVERIFIED_NOTE and own == "The phrenic nerve, roots C3 to C5."
    assert result.confidence_level == "low"


async def test_a_model_that_may_answer_from_memory_does_so_labelled(settings, tools) -> None:
    from docgemma.agent.service import Agent

    served = settings.model_copy(update={"backend": "openai", "served_answers_from_memory": True})
    llm = ScriptedBackend([intent("DIRECT"), "The phrenic nerve."])
    agent = Agent.create(served, llm, tools.registry(), classifiers={})
    _, result = await run(agent, "Which nerve innervates the diaphragm?")
    assert result.final_response == f"The phrenic nerve.\n\n{UNVERIFIED_NOTE}"
    assert result.confidence_level == "low"


async def test_tool_names_and_raw_errors_never_reach_the_answer(make_agent, tools) -> None:
    tools.queue("check_drug_safety", LABEL)
    named = (GOOD[0], "The check_drug_safety report shows a risk of Torsade de Pointes.")
    raw = (FIXED[0], "Traceback: KeyError: dose; ECG monitoring for at least 3 days.")
    llm = lookup(answering(named, raw), {"statements": []})
    events, result = await run(make_agent(llm), "FDA warnings for dofetilide?")
    for text in (result.final_response, streamed(events)):
        assert "check_drug_safety" not in text and "Traceback" not in text
        assert "Drug Safety Report report shows a risk of Torsade de Pointes" in text


async def test_a_drug_question_goes_to_a_source_on_a_model_that_may_not_recall(
    make_agent, tools
) -> None:
    tools.queue("check_drug_safety", LABEL)
    llm = ScriptedBackend(
        [
            intent("DIRECT", "dofetilide mechanism"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            answering(GOOD),
        ]
    )
    _, result = await run(make_agent(llm), "How does dofetilide work?")
    assert result.intent == "TOOL_NEEDED"
    assert any("answered from its label" in e.detail for e in result.reasoning_timeline)
    assert result.tool_calls[0].tool == "check_drug_safety"


async def test_thinking_streams_apart_before_the_cited_answer(make_agent, tools, settings) -> None:
    settings.thinking_family = "generic"
    tools.queue("check_drug_safety", LABEL)
    llm = lookup("Look for the boxed warning in check_drug_safety.</think>", answering(GOOD))
    events, result = await run(
        make_agent(llm), "FDA warnings for dofetilide?", thinking=True, thinking_budget=40
    )
    thought = "".join(e.text for e in events if isinstance(e, ThinkingToken))
    assert "boxed warning" in thought and "check_drug_safety" not in thought
    assert "Your reasoning so far" in llm.calls[-1].messages[-1].content
    assert result.final_response == GOOD[1] + " [1]"


async def test_a_statement_the_length_limit_cut_shows_only_its_whole_sentences(
    make_agent, tools
) -> None:
    from docgemma.agent.answer.statements import STATEMENT_CHARS

    tools.queue("check_drug_safety", LABEL)
    whole = "Dofetilide carries a boxed warning for Torsade de Pointes."
    cut = f"{whole} It must be started with monitoring of the ECG " + "and " * 60
    llm = lookup(answering((GOOD[0], cut[:STATEMENT_CHARS])))
    _, result = await run(make_agent(llm), "FDA warnings for dofetilide?")
    assert result.final_response == f"{whole} [1]"


async def test_beside_a_lookup_the_patients_record_is_a_source_only_when_asked_about(
    make_agent, tools
) -> None:
    async def summary(pid: str) -> str | None:
        return "Patient: Ann Lee (ID al-1)\nLatest labs: Potassium 4.1 mmol/L (2026-01-02)"

    for question, shown in (
        ("FDA warnings for dofetilide?", False),
        ("Is dofetilide ok for her?", True),
    ):
        tools.queue("check_drug_safety", LABEL)
        llm = lookup(answering(GOOD))
        await run(make_agent(llm, patient_summary=summary), question, patient_id="al-1")
        assert ("EHR summary of the active patient" in llm.calls[-1].prompt) is shown


async def test_the_opposite_of_a_statement_left_out_is_left_out_too(make_agent, tools) -> None:
    """A quote that says neither (a level "to be taken into account") held neither the
    denial the model wrote first nor, once told, the assertion it wrote instead."""
    level = ToolOutcome(
        formatted="Ibuprofen taken with aspirin: to be taken into account.",
        sources=[Source(title="Interaction reference", kind="reference")],
    )
    tools.queue("check_drug_safety", level)
    quote = "Ibuprofen taken with aspirin"
    denied = (quote, "Ibuprofen should not be taken with aspirin.")
    asserted = (quote, "Ibuprofen should be taken with aspirin.")
    llm = lookup(answering(denied), answering(asserted))
    events, result = await run(make_agent(llm), "FDA warnings for dofetilide?")
    assert "should be taken with aspirin" not in result.final_response + streamed(events)
    assert result.left_out == [denied[1], asserted[1]]


PAGES = ToolOutcome(
    formatted="Condition pages on “chest pain at rest, sweating”:\n"
    "[1] Acid reflux (heartburn) — similarity 0.61; usual urgency: Self care.\n"
    "    Heartburn is a burning feeling in the chest after eating. See a GP if it lasts "
    "more than 3 weeks.\n"
    "[2] Angina — similarity 0.60; usual urgency: Urgent Primary Care.\n"
    "    Angina is chest pain caused by reduced blood flow to the heart muscles.",
    sources=[
        Source(title="DocGemma demonstration page: Acid reflux (heartburn)", kind="reference"),
        Source(title="DocGemma demonstration page: Angina", kind="reference"),
    ],
)
CASE = "61M, smoker, 25 minutes of chest pain at rest with sweating. What's the next step?"


def case_search(*answers: object) -> ScriptedBackend:
    return ScriptedBackend(
        [
            intent("TOOL_NEEDED", "chest pain at rest"),
            select("search_knowledge_base"),
            {"query": "chest pain at rest, sweating"},
            quality("success_rich"),
            *answers,
        ]
    )


async def test_a_case_is_not_answered_from_pages_about_conditions_it_does_not_name(
    make_agent, tools
) -> None:
    tools.queue("search_knowledge_base", PAGES)
    llm = case_search()  # no answer scripted: the model is not asked to write one
    events, result = await run(make_agent(llm), CASE)
    answer = result.final_response
    assert "Heartburn" not in answer and "See a GP" not in answer
    assert "not about this patient" in answer
    assert "[1] DocGemma demonstration page: Acid reflux (heartburn)" in answer
    assert result.cited == [] and result.confidence_level == "low"
    assert result.model_calls == 4 and streamed(events).endswith(answer)


async def test_a_case_reads_only_the_page_about_the_condition_it_names(make_agent, tools) -> None:
    tools.queue("search_knowledge_base", PAGES)
    said = answering(("reduced blood flow", "Angina is chest pain from reduced blood flow."))
    llm = case_search(said)
    _, result = await run(make_agent(llm), CASE.replace("next step?", "next step for angina?"))
    opening, answer = result.final_response.split("\n\n")  # the can't-miss block first
    assert "acute coronary syndrome" in opening
    assert answer == "Angina is chest pain from reduced blood flow. [1]"
    assert [s.title for s in result.sources_used] == ["DocGemma demonstration page: Angina"]
    assert "Heartburn" not in llm.calls[-1].prompt


async def test_a_question_that_is_not_a_case_reads_every_page(make_agent, tools) -> None:
    tools.queue("search_knowledge_base", PAGES)
    said = answering(("after eating", "Heartburn is a burning feeling after eating."))
    _, result = await run(make_agent(case_search(said)), "What causes a burning chest pain?")
    assert result.final_response.startswith("Heartburn is a burning feeling after eating. [1]")


@pytest.mark.parametrize(
    ("title", "question", "read"),
    [
        ("Deep vein thrombosis (DVT)", "30M, ?DVT after a long-haul flight. What next?", True),
        ("Flu (influenza)", "70F with flu since Monday, what next?", True),
        ("Heartburn and acid reflux (GORD)", "45M, heartburn after meals, what next?", True),
        ("Angina", "61M, chest pain on exertion, ?angina. What next?", True),
        # a bracket inside a title qualifies it: an adult's fever does not name this page
        ("High temperature (fever) in children", "45M, fever and rigors. What next?", False),
        # a condition the question denies is not named
        (
            "Heartburn and acid reflux (GORD)",
            "61M, chest pain at rest, not like his usual heartburn. What next?",
            False,
        ),
    ],
)
def test_a_case_names_a_page_by_its_title_its_abbreviation_or_either_half(
    title, question, read
) -> None:
    assert read_for_a_case(title, unnegated(question)) is read


GRADED = (
    "  - ANSM level for clarithromycin + simvastatin: Contraindicated (never to be used "
    "together), because of: a raised risk of rhabdomyolysis."
)
CHECKED = ToolOutcome(
    formatted=f"Interaction check for: clarithromycin, simvastatin.\n{GRADED}",
    sources=[Source(title="ANSM interaction thesaurus", kind="reference")],
    passages=[Passage(source=0, section="Graded interactions", text=GRADED)],
)


async def test_an_interaction_the_check_found_is_shown_when_no_statement_passes(
    make_agent, tools
) -> None:
    """The model's statements all fail their check twice: the finding is still the answer,
    in the reference's own words, never a decline that hides a contraindication."""
    tools.queue("check_drug_interactions", CHECKED)
    denial = ("clarithromycin + simvastatin", "Clarithromycin is safe with simvastatin.")
    llm = ScriptedBackend(
        [
            intent("TOOL_NEEDED", "clarithromycin with simvastatin"),
            select("check_drug_interactions"),
            {"drug_names": ["clarithromycin", "simvastatin"]},
            quality("success_rich"),
            answering(denial),
            answering(denial),
        ]
    )
    events, result = await run(make_agent(llm), "Can I start clarithromycin with simvastatin?")
    shown = result.final_response
    assert shown.startswith("From the interaction reference:\n- ANSM level for clarithromycin")
    assert shown.endswith("rhabdomyolysis. [1]")
    assert "is safe" not in shown + streamed(events)
    assert result.left_out == [denial[1], denial[1]]

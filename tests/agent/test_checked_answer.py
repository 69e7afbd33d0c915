"""Junk never becomes the answer: a withheld draft, one retry, then the sources' own words;
knowledge answers on the embedded profiles are grounded or visibly labelled."""

from __future__ import annotations

import pytest

from docgemma.agent.answer import (
    KEY_FACT_CHARS,
    NO_RELIABLE_ANSWER,
    SOURCES_ONLY_MESSAGE,
    UNVERIFIED_NOTE,
    left_out_note,
)
from docgemma.agent.answer_check import Defect
from docgemma.agent.checked_answer import Judge
from docgemma.agent.events import AnswerRejected, AnswerToken
from docgemma.agent.knowledge import Grounding
from docgemma.agent.outcome import TurnResult
from docgemma.agent.prompts import SYNTHESIZE_FROM_MEMORY_SYSTEM, SYNTHESIZE_SYSTEM
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.base import ToolOutcome

from .conftest import intent, quality, run, select
from .fakes import tool_result

JUNK = "Guidelines: Clinician's question: dofetilide. No information was retrieved. LoginPage"
CJK = "Metformin lowers glucose in the bloodstream に通いroom."
GOOD = "Dofetilide carries a boxed warning for Torsade de Pointes; start it with ECG monitoring."


def safety_turn(*answers: str) -> ScriptedBackend:
    return ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
            quality("success_rich"),
            *answers,
        ]
    )


def rejections(events) -> list[AnswerRejected]:
    return [e for e in events if isinstance(e, AnswerRejected)]


def test_the_answer_composed_by_code_passes_the_answer_check_itself() -> None:
    """The evaluation counts a shown answer failing the check as degenerate: a composed
    answer whose source line ended in a record id ("… sokafor-004") read as cut off."""
    from docgemma.agent.answer import checked_fallback
    from docgemma.agent.answer_check import is_degenerate

    found = tool_result(
        "search_patient",
        "One patient found: Sarah Okafor (ID sokafor-004, born 1983-12-02).",
        sources=[{"title": "EHR patient record sokafor-004", "kind": "ehr"}],
    )
    answer = checked_fallback([found], [])
    assert answer.endswith("Source: EHR patient record sokafor-004.")
    assert not is_degenerate(answer, question="Find patient Sarah Okafor.")


async def test_a_junk_draft_is_withheld_and_the_retry_answers(make_agent) -> None:
    llm = safety_turn(JUNK, GOOD)
    events, result = await run(make_agent(llm), "Check FDA warnings for dofetilide")
    assert result.final_response == GOOD
    [rejected] = rejections(events)
    assert rejected.action == "retry" and "repeats its instructions" in rejected.reason
    first, second = llm.calls[-2:]
    assert (first.temperature, second.temperature) == (0.5, 0.2)
    assert result.model_calls == 6  # intent, tool, arguments, result class, two drafts
    assert any("second try" in t.detail for t in result.reasoning_timeline)


async def test_a_draft_that_only_lists_the_sources_is_retried(make_agent) -> None:
    """A model answered "Pull up the record of patient lchen-002." with "[1] EHR chart of…"."""
    events, result = await run(
        make_agent(safety_turn("[1] Drug label", GOOD)), "Check FDA warnings for dofetilide"
    )
    assert result.final_response == GOOD
    [rejected] = rejections(events)
    assert "only lists the sources" in rejected.reason


async def test_two_junk_drafts_give_the_sources_key_facts_without_model_text(make_agent) -> None:
    events, result = await run(
        make_agent(safety_turn(JUNK, CJK)), "Check FDA warnings for dofetilide"
    )
    answer = result.final_response
    assert answer.startswith(SOURCES_ONLY_MESSAGE)
    assert (
        "Torsade de Pointes" in answer
        and "Source: Drug label (https://example.org/label)" in answer
    )
    assert "LoginPage" not in answer and "に通い" not in answer
    # the sources answered in full, but no written answer passed: not "high" (seen in the
    # app on an antidote question composed from an unrelated interaction check)
    assert result.confidence_level == "medium"
    assert [r.action for r in rejections(events)] == ["retry", "sources"]
    streamed = "".join(e.text for e in events if isinstance(e, AnswerToken))
    assert streamed.endswith(answer.split("\n")[-1])
    assert any("without model text" in t.detail for t in result.reasoning_timeline)


async def test_a_draft_stopped_by_the_token_limit_ends_at_its_last_whole_item(
    make_agent, settings
) -> None:
    """A small model's anaphylaxis answer ran out of tokens in "11. Administering intr"."""
    draft = "Give, in order:\n1. Epinephrine 0.5 mg IM.\n2. High-flow oxygen.\n3. Fluids for hyp"
    settings.node_generation = {"synthesize": {"max_tokens": 14}}  # the scripted model counts words
    llm = ScriptedBackend([intent("DIRECT"), draft])
    _, result = await run(make_agent(llm), "How is anaphylaxis treated?")
    assert result.final_response.startswith(
        "Give, in order:\n1. Epinephrine 0.5 mg IM.\n2. High-flow oxygen."
    )
    assert "Fluids for hyp" not in result.final_response
    assert result.model_calls == 2  # what remained passed: no retry


async def test_a_direct_question_with_two_junk_drafts_says_so(make_agent) -> None:
    llm = ScriptedBackend([intent("DIRECT"), CJK, CJK])
    _, result = await run(make_agent(llm), "What is the first-line treatment for type 2 diabetes?")
    assert result.final_response == NO_RELIABLE_ANSWER


async def test_long_tool_results_reach_the_prompt_as_key_facts(make_agent, tools) -> None:
    lines = [
        f"Warning {n}: " + "prolongs the QT interval in some patients. " * 12 for n in range(30)
    ]
    tools.queue("check_drug_safety", ToolOutcome(data={"x": 1}, formatted="\n".join(lines)))
    llm = safety_turn(GOOD)
    await run(make_agent(llm), "Check FDA warnings for dofetilide")
    prompt = llm.calls[-1].prompt or llm.calls[-1].messages[-1].content
    retrieved = prompt.split("Information retrieved:")[1]
    assert "Warning 0:" in retrieved and "Warning 29:" not in retrieved
    assert len(retrieved) < KEY_FACT_CHARS + 200


async def test_a_knowledge_answer_cites_the_offline_source_that_covers_it(settings, tools) -> None:
    from docgemma.agent.service import Agent

    asked: list[str] = []

    async def knowledge(question: str) -> Grounding | None:
        asked.append(question)
        return Grounding(
            "Does metformin reduce mortality?", "Metformin lowered ...", 0.9, "PubMedQA"
        )

    llm = ScriptedBackend([intent("DIRECT"), "Metformin is first-line."])
    agent = Agent.create(settings, llm, tools.registry(), classifiers={}, knowledge=knowledge)
    _, result = await run(agent, "Is metformin first-line?")
    assert asked == ["Is metformin first-line?"]
    assert "Reference passage" in (llm.calls[-1].prompt or llm.calls[-1].messages[-1].content)
    assert llm.calls[-1].messages[0].content == SYNTHESIZE_SYSTEM.render()
    assert "Based on an offline source: “Does metformin reduce mortality?”" in result.final_response
    assert any("Does metformin reduce mortality?" in s.title for s in result.sources_used)


@pytest.mark.parametrize(
    ("question", "reply", "shown"),
    [
        (
            "What innervates the diaphragm?",
            "The phrenic nerve (C3–C5).",
            f"The phrenic nerve (C3–C5).\n\n{UNVERIFIED_NOTE}",
        ),
        # a reply that states no knowledge: the label had followed it in the app
        (
            "Good afternoon, can you help me with a clinical question?",
            "Certainly! What's your clinical question?",
            "Certainly! What's your clinical question?",
        ),
    ],
)
async def test_an_uncovered_knowledge_answer_is_labelled_unverified(
    settings, tools, question: str, reply: str, shown: str
) -> None:
    from docgemma.agent.service import Agent

    async def nothing(question: str) -> Grounding | None:
        return None

    llm = ScriptedBackend([intent("DIRECT"), reply])
    agent = Agent.create(settings, llm, tools.registry(), classifiers={}, knowledge=nothing)
    _, result = await run(agent, question)
    assert result.final_response == shown
    # nothing was looked up, so the guidelines do not speak of lookups or numbered sources
    # (given those, a small model invented "(Nelson et al., 2012)")
    assert llm.calls[-1].messages[0].content == SYNTHESIZE_FROM_MEMORY_SYSTEM.render()


async def test_a_record_question_answers_from_the_active_patients_summary(settings, tools) -> None:
    """Seen in the app: "What are her allergies?" with John Smith selected was answered from
    his record and labelled as the model's own unverified knowledge."""
    from docgemma.agent.service import Agent

    asked: list[str] = []

    async def knowledge(question: str) -> Grounding | None:
        asked.append(question)
        return None

    async def summary(pid: str) -> str | None:
        return "John Smith. Allergies: penicillin (hives, moderate)." if pid == "abc-123" else None

    llm = ScriptedBackend([intent("DIRECT"), "John Smith is allergic to penicillin (hives)."])
    agent = Agent.create(
        settings,
        llm,
        tools.registry(),
        classifiers={},
        knowledge=knowledge,
        patient_summary=summary,
    )
    _, result = await run(agent, "What are her allergies?", patient_id="abc-123")
    assert result.final_response == "John Smith is allergic to penicillin (hives)."
    assert asked == []  # no offline passage is looked for: the record is the source
    assert [s.title for s in result.sources_used] == ["EHR summary of the active patient (abc-123)"]


@pytest.mark.parametrize("patient_id", [None, "pat-001"], ids=["no-patient", "active-patient"])
async def test_when_every_source_failed_code_says_so_without_asking_the_model(
    make_agent, tools, patient_id
) -> None:
    from docgemma.agent.answer import NOT_RETRIEVED_ANSWER
    from docgemma.tools.http import offline_outcome

    offline = offline_outcome("Drug Safety Report", "openFDA", entity="dofetilide")
    tools.queue("check_drug_safety", offline, offline, offline)

    def no_synthesis(messages, schema):
        if schema is None:
            raise AssertionError("the model must not write an answer from memory")
        if schema.__name__ == "RetryStrategy":
            return {"strategy": "retry_same", "reasoning": "offline"}
        return quality("no_results")

    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "dofetilide"},
        ],
        responder=no_synthesis,
    )

    async def summary(pid: str) -> str | None:
        return "77F, atrial fibrillation, warfarin 5 mg" if pid == "pat-001" else None

    agent = make_agent(llm, patient_summary=summary)
    events, result = await run(agent, "Check FDA warnings for dofetilide", patient_id=patient_id)
    answer = result.final_response
    assert answer.startswith(NOT_RETRIEVED_ANSWER)
    assert "could not be used" in answer and "No information was retrieved" in answer
    assert "".join(e.text for e in events if isinstance(e, AnswerToken)) == answer
    assert not [c for c in llm.calls if c.schema is None], "no free-text call was made"


async def test_findings_given_to_a_failed_source_are_withheld(make_agent, tools, settings) -> None:
    """Offline: the label lookup failed, the interaction check answered, and both
    drafts presented the interaction text as "the FDA boxed warnings for warfarin". The
    clinician gets the interaction check's own facts and the note on what is missing."""
    from docgemma.tools.http import offline_outcome

    settings.offline = True
    tools.queue("check_drug_safety", offline_outcome("Drug Safety Report", "openFDA"))
    tools.queue(
        "check_drug_interactions",
        ToolOutcome(
            data={"pairs": 1},
            formatted="warfarin + aspirin: bleeding risk. FDA labels were not consulted (offline).",
        ),
    )
    claim = "The FDA boxed warnings for warfarin include: bleeding risk."
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_name": "warfarin"},
            quality("error_fatal"),
            select("check_drug_interactions"),
            {"drug_names": ["warfarin", "aspirin"]},
            quality("success_rich"),
            claim,
            claim,
        ]
    )
    query = "What are the FDA boxed warnings for warfarin? Also check its interaction with aspirin."
    events, result = await run(make_agent(llm), query)
    reasons = [e.reason for e in rejections(events)]
    assert reasons == ["presents findings of a source that was unavailable"] * 2
    assert claim not in result.final_response
    assert result.final_response.startswith(SOURCES_ONLY_MESSAGE)
    assert "warfarin + aspirin: bleeding risk." in result.final_response
    assert "Drug Safety Report could not be used" in result.final_response


async def interaction_turn(
    make_agent, tools, outcome: ToolOutcome, drafts: list[str], drugs: list[str], **agent_kw
) -> tuple[list, TurnResult]:
    """One interaction check answering ``outcome``; the model then writes ``drafts``. With a
    ``patient_summary`` the turn has patient p-1 selected."""
    tools.queue("check_drug_interactions", outcome)
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_interactions"),
            select("check_drug_interactions"),
            {"drug_names": drugs},
            quality("success_rich"),
            *drafts,
        ]
    )
    selected = {"patient_id": "p-1"} if "patient_summary" in agent_kw else {}
    query = f"Check the interactions of {' and '.join(drugs)}."
    return await run(make_agent(llm, **agent_kw), query, **selected)


THREE = ["dofetilide", "azithromycin", "atorvastatin"]
GRADED = ToolOutcome(
    data={"pairs": 1},
    formatted="azithromycin + atorvastatin: rhabdomyolysis.",
    found=[["atorvastatin", "azithromycin"]],
)
"""The thesaurus grades azithromycin + atorvastatin."""
UNCHECKED = GRADED.model_copy(update={"unchecked": ["dofetilide"]})
"""... and does not list dofetilide."""
UNCHECKED_REASON = "states a finding about something the sources could not check"


async def test_an_interaction_claimed_for_an_unchecked_drug_is_withheld(make_agent, tools) -> None:
    """Seen in the browser, offline: the thesaurus lists azithromycin and atorvastatin, not
    dofetilide, and the draft claimed "a graded interaction between dofetilide and
    azithromycin". The retry that says dofetilide was not checked is the answer."""
    claim = "There is a graded interaction between dofetilide and azithromycin."
    honest = (
        "Dofetilide is not in the available references, so its interactions were not checked. "
        "Azithromycin and atorvastatin raise the risk of rhabdomyolysis."
    )
    events, result = await interaction_turn(make_agent, tools, UNCHECKED, [claim, honest], THREE)
    assert [e.reason for e in rejections(events)] == [UNCHECKED_REASON]
    assert result.final_response.startswith(honest)


async def test_an_interaction_claimed_for_a_drug_of_the_chart_is_withheld(
    make_agent, tools
) -> None:
    """Seen in the app with John Smith selected: the interaction check of dofetilide,
    azithromycin and atorvastatin was answered with "a graded interaction between
    azithromycin and lisinopril", lisinopril coming from his chart, never checked."""
    invented = "There is a graded interaction between azithromycin and lisinopril."
    honest = "Azithromycin with atorvastatin raises the risk of rhabdomyolysis."

    async def summary(pid: str) -> str | None:
        return "Active medications: lisinopril 20 mg once daily; atorvastatin 40 mg at night"

    events, result = await interaction_turn(
        make_agent, tools, GRADED, [invented, honest], THREE[1:], patient_summary=summary
    )
    assert [e.reason for e in rejections(events)] == [UNCHECKED_REASON]
    assert result.final_response.startswith(honest)


async def test_an_answer_silent_on_an_unchecked_drug_gets_a_note(make_agent, tools) -> None:
    """Seen in the app: the answer gave the azithromycin + atorvastatin interaction and said
    nothing of dofetilide, which reads as "no interaction"."""
    silent = "Azithromycin with atorvastatin raises the risk of rhabdomyolysis."
    _, result = await interaction_turn(make_agent, tools, UNCHECKED, [silent], THREE)
    assert result.final_response.startswith(silent)
    assert result.final_response.endswith(
        "Note: No reference available to the Drug Interaction Check lists dofetilide, so it was "
        "not checked."
    )


async def test_an_answer_denying_a_graded_interaction_is_withheld(make_agent, tools) -> None:
    """Seen in the evaluation: "Sertraline and sumatriptan do not interact." after a check
    that grades the pair. Both drafts deny it, so the clinician gets the check's own facts."""
    facts = "sertraline + sumatriptan: risk of serotonin syndrome."
    graded = ToolOutcome(data={"pairs": 1}, formatted=facts, found=[["sertraline", "sumatriptan"]])
    denial = "Sertraline and sumatriptan do not interact."
    events, result = await interaction_turn(
        make_agent, tools, graded, [denial, denial], ["sertraline", "sumatriptan"]
    )
    assert [e.reason for e in rejections(events)] == ["denies what a source found"] * 2
    assert denial not in result.final_response
    assert result.final_response.startswith(SOURCES_ONLY_MESSAGE)
    assert facts in result.final_response


@pytest.mark.parametrize(
    ("answered", "claims"),
    [
        ("warfarin + aspirin: bleeding. FDA labels were not consulted (offline).", ("FDA",)),
        ("FDA drug labels, drug-interaction sections: warfarin may raise INR.", ()),
    ],
    ids=["says-it-is-missing", "presents-fda-text"],
)
def test_a_word_another_source_presents_findings_in_is_not_withheld(answered, claims) -> None:
    from docgemma.agent.nodes.synthesize import missing_claims
    from docgemma.agent.state import ToolResult
    from docgemma.tools.registry import build_registry

    def record(tool: str, text: str, error: str | None) -> ToolResult:
        return ToolResult(
            tool_name=tool, tool_label="", args={}, result={}, formatted_result=text,
            error_type=error, entity=None, missing_fields=[], suggestions=[],
            patient_matches=None, sources=[], quality=None, retry=False, executed=True,
            unchecked=[], found=[],
        )  # fmt: skip

    results = [
        record("check_drug_safety", "unavailable", "service_unavailable"),
        record("check_drug_interactions", answered, None),
    ]
    assert missing_claims(results, build_registry()) == (*claims, "boxed warning")


async def test_a_sentence_the_sources_do_not_support_is_left_out_and_said(make_agent) -> None:
    """A small model added "comes as injections, and patches" to a sourced metformin answer."""
    extra = "It is also sold as a transdermal patch for atrial fibrillation."
    llm = safety_turn(f"{GOOD} {extra}")
    _, result = await run(make_agent(llm), "Check FDA warnings for dofetilide")
    assert result.final_response == f"{GOOD}\n\nNote: {left_out_note(1)}"
    assert result.left_out == [extra]
    assert result.confidence_level == "medium"  # "high" for the same turn without it
    assert any(extra in t.detail for t in result.reasoning_timeline)
    assert result.model_calls == 5  # kept what was supported: no second draft


async def test_a_draft_with_nothing_supported_is_written_again(make_agent) -> None:
    events, result = await run(
        make_agent(safety_turn("It causes lactic acidosis.", GOOD)),
        "Check FDA warnings for dofetilide",
    )
    assert result.final_response == GOOD and result.confidence_level == "high"
    [rejected] = rejections(events)
    assert rejected.reason == "names only what its sources do not"


async def test_an_unverified_knowledge_answer_is_not_cut_to_sources_it_does_not_have(
    settings, tools
) -> None:
    from docgemma.agent.service import Agent

    async def nothing(question: str) -> Grounding | None:
        return None

    draft = "Hypertension is often treated first with lisinopril or amlodipine."
    llm = ScriptedBackend([intent("DIRECT"), draft])
    agent = Agent.create(settings, llm, tools.registry(), classifiers={}, knowledge=nothing)
    _, result = await run(agent, "How is hypertension treated?")
    assert result.final_response == f"{draft}\n\n{UNVERIFIED_NOTE}" and result.left_out == []


async def test_an_unverified_answer_loses_a_drug_no_dictionary_knows(settings, tools) -> None:
    """A small model named "N-acetyphenamide (NAP)" as the antidote for
    acetaminophen overdose, under the Unverified label."""
    from docgemma.agent.service import Agent

    async def nothing(question: str) -> Grounding | None:
        return None

    kept = "Treat an acetaminophen overdose urgently."
    invented = "The antidote is N-acetyphenamide (NAP)."
    llm = ScriptedBackend([intent("DIRECT"), f"{kept} {invented}"])
    agent = Agent.create(settings, llm, tools.registry(), classifiers={}, knowledge=nothing)
    _, result = await run(agent, "What is the antidote for acetaminophen overdose?")
    note = left_out_note(1, sourced=False)
    assert result.final_response == f"{kept}\n\n{UNVERIFIED_NOTE}\n\nNote: {note}"
    assert "no drug dictionary knows" in note
    assert result.left_out == [invented]
    assert any(
        "naming a drug no dictionary knows" in t.detail and invented in t.detail
        for t in result.reasoning_timeline
    )


async def test_a_knowledge_answer_keeps_only_what_its_passage_supports(settings, tools) -> None:
    from docgemma.agent.service import Agent

    async def passage(question: str) -> Grounding | None:
        return Grounding("Asthma", "Asthma causes wheezing and breathlessness.", 0.9, "Index")

    draft = "Asthma causes wheezing [1]. It is treated with montelukast."
    llm = ScriptedBackend([intent("DIRECT"), draft])
    agent = Agent.create(settings, llm, tools.registry(), classifiers={}, knowledge=passage)
    _, result = await run(agent, "What does asthma cause?")
    assert result.final_response.startswith("Asthma causes wheezing [1].\n\n")
    assert result.left_out == ["It is treated with montelukast."]


async def test_an_earlier_answer_in_the_conversation_supports_nothing(settings, tools) -> None:
    """The previous turn's unverified answer is in the prompt's conversation, not a source."""
    from docgemma.agent.service import Agent

    async def passage(question: str) -> Grounding | None:
        if "cause" not in question:
            return None
        return Grounding("Asthma", "Asthma causes wheezing and breathlessness.", 0.9, "Index")

    llm = ScriptedBackend(
        [
            intent("DIRECT"),
            "Asthma is treated with montelukast.",
            intent("DIRECT"),
            "Asthma causes wheezing [1]. It is treated with montelukast.",
        ]
    )
    agent = Agent.create(settings, llm, tools.registry(), classifiers={}, knowledge=passage)
    _, first = await run(agent, "How is asthma treated?")
    assert first.final_response.endswith(UNVERIFIED_NOTE)
    _, result = await run(agent, "What does asthma cause?")
    assert "montelukast" in llm.calls[-1].messages[-1].content  # the model saw the history
    assert result.left_out == ["It is treated with montelukast."]


async def test_a_symptom_question_rests_on_the_condition_page_that_covers_it(settings) -> None:
    """Real knowledge base and embedder: "What are the symptoms of pneumonia?" had been
    answered from the model's memory, with the Unverified label."""
    from docgemma.agent.knowledge import page_passage

    page = page_passage(settings, "What are the symptoms of pneumonia?")
    assert page is not None and page.title == "Pneumonia" and "cough" in page.text
    assert page.source() == {"title": "DocGemma demonstration page: Pneumonia", "kind": "reference"}
    assert page_passage(settings, "Which nerve supplies motor fibres to the diaphragm?") is None


def test_what_is_left_after_leaving_out_must_pass_the_check_on_its_own() -> None:
    """Left without its one stated fact, the draft is a source line copied from the prompt."""
    source = "[1] Pneumonia — Symptoms: a cough with phlegm, a high temperature and chills"
    judge = Judge(
        question="What are the symptoms of pneumonia?",
        instructions="",
        markers=(),
        tool_names=(),
        context=f"Information retrieved:\n{source}.",
        sourced=True,
    )
    draft = judge(f"{source}\nIt leads to sepsis.")
    assert draft.verdict.defects == (Defect.ONLY_SOURCES,)
    assert draft.left_out == ("It leads to sepsis.",)

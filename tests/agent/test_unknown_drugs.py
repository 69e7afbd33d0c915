"""A drug name no dictionary knows is never checked: the clinician is offered the nearest
known names, and the request runs once they confirm."""

from __future__ import annotations

import pytest

from docgemma.agent.drug_names import american_spelling, misspelt_drugs
from docgemma.agent.grounding import Evidence
from docgemma.agent.nodes import input_assembly
from docgemma.agent.person_names import introduced_names
from docgemma.agent.validation import unknown_drugs
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.registry import build_registry

from .conftest import NOTHING_CITED, intent, quality, run, select

ASKED = "Is there an interaction between simvastatn and clarithromycin?"


@pytest.mark.parametrize(
    "proposed",
    [["simvastatn", "clarithromycin"], ["simvastatin", "clarithromycin"]],
    ids=["as-typed", "corrected-by-the-model"],
)
async def test_a_misspelt_drug_is_offered_back_and_nothing_is_checked(
    make_agent, tools, proposed, monkeypatch
) -> None:
    """The arguments' own check, behind the message's (a word the message check lets by)."""
    monkeypatch.setattr(input_assembly, "misspelt_drugs", lambda *_: {})
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_interactions"),
            select("check_drug_interactions"),
            {"drug_names": proposed},
        ]
    )
    _, result = await run(make_agent(llm), ASKED)
    assert tools.calls_to("check_drug_interactions") == [] and result.clarification_requested
    assert "Did you mean simvastatin" in result.final_response
    assert "Nothing has been checked yet" in result.final_response
    assert "no interaction" not in result.final_response.lower()


async def test_yes_runs_the_request_with_the_confirmed_name(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_interactions"),
            select("check_drug_interactions"),
            {"drug_names": ["simvastatin", "clarithromycin"]},
            quality("success_rich"),
            NOTHING_CITED,
        ]
    )
    agent = make_agent(llm)
    await run(agent, ASKED)
    _, result = await run(agent, "yes")
    ((args, _),) = tools.calls_to("check_drug_interactions")
    assert args == {"drug_names": ["simvastatin", "clarithromycin"]}
    assert "simvastatin and clarithromycin" in llm.calls[0].prompt  # the request, corrected
    assert "Went on with the drug names confirmed" in [s.title for s in result.reasoning_timeline]


async def test_any_other_reply_drops_the_held_request(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent("DIRECT", "question"),
            "Clarithromycin is a macrolide.",
        ]
    )
    agent = make_agent(llm)
    await run(agent, ASKED)
    _, result = await run(agent, "What class of antibiotic is clarithromycin?")
    assert tools.calls == []
    assert "User query: What class of antibiotic is clarithromycin?" in llm.calls[0].prompt


@pytest.mark.parametrize(
    ("names", "flagged"),
    [
        (["simvastatn", "clarithromycin"], ["simvastatn"]),
        (["beta blockers", "verapamil"], []),  # a class, spelt with a space
        (["grapefruit juice", "simvastatin"], []),  # near no drug: not a misspelling
    ],
)
def test_only_a_misspelling_of_a_known_drug_is_held_back(names: list, flagged: list) -> None:
    spec = build_registry()["check_drug_interactions"]
    query = f"Check {names[0]} with {names[1]}"
    found = unknown_drugs(spec, {"drug_names": names}, Evidence.of({"user_query": query}))
    assert list(found) == flagged


async def test_a_message_that_only_misspells_its_drugs_asks_before_any_model_call(
    make_agent, tools
) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_interactions"),
            select("check_drug_interactions"),
            {"drug_names": ["warfarin", "ibuprofen"]},
            quality("success_rich"),
            NOTHING_CITED,
        ]
    )
    agent = make_agent(llm)
    _, asked = await run(agent, "interacton warfrin ibuprofn")
    assert asked.clarification_requested and asked.model_calls == 0
    assert "'warfrin' is not a drug name I know. Did you mean warfarin?" in asked.final_response
    assert "Nothing has been checked yet" in asked.final_response
    _, result = await run(agent, "yes")
    assert "interacton warfarin ibuprofen" in llm.calls[0].prompt  # the request, corrected
    ((args, _),) = tools.calls_to("check_drug_interactions")
    assert args == {"drug_names": ["warfarin", "ibuprofen"]}


@pytest.mark.parametrize(
    "message",
    [
        "What is the antidote for dabigatran?",
        "Which sedative is safest in the elderly?",
        "Find patient Priya Raman.",
        "Nothing helps her headache.",
        "Erythema migrans after a tick bite: which antibiotic?",  # words of diagnosis names
        # British spellings of words the vocabularies hold in American spelling
        "Melaena and haematemesis on oestrogen: which anaesthetic for the endoscopy?",
        "Coeliac disease with haemoptysis and leukaemia in a paediatric patient",
        # English words and their inflections, spelt nearly like a drug or a drug class
        "Urine dipstick: nitrites and leukocytes positive; she looks dehydrated.",
        "Coloured haloes around lights and torsional nystagmus since the fall.",
        # words of drug names of several words
        "Ferrous fumarate, calcium gluconate and fusidic acid cream are on her list.",
    ],
)
def test_words_that_are_spelt_right_are_no_misspelt_drugs(message: str) -> None:
    assert misspelt_drugs(message, introduced_names(message)) == {}


def test_a_british_spelling_is_the_american_word_and_a_misspelling_is_still_one() -> None:
    assert american_spelling("oesophageal") == "esophageal"
    assert american_spelling("anaesthetic") == "anesthetic"
    assert misspelt_drugs("oestrogen and warfrin") == {"warfrin": ["warfarin"]}

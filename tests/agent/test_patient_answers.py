"""Patient answers that help, on the real embedded FHIR server over HTTP: a patient found is
named with id, birth date and what can be done next; several are listed to pick from; none
found says so and offers other ways to search."""

from __future__ import annotations

import pytest
from fhir_server import embedded_fhir
from scripted_quotes import answering

from docgemma.agent.factory import chart_summary
from docgemma.agent.service import Agent
from docgemma.config import Settings
from docgemma.ehr.client import EHRClient
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.registry import build_registry

from .conftest import intent, quality, run, select

fhir_url = embedded_fhir("module")


@pytest.fixture
def agent_for(settings: Settings, fhir_url: str):
    def make(*replies) -> Agent:
        llm = ScriptedBackend(list(replies))
        ehr = EHRClient(fhir_url)
        return Agent.create(
            settings,
            llm,
            build_registry(),
            classifiers={},
            fhir=ehr,
            patient_summary=chart_summary(ehr),
        )

    return make


def search(name: str) -> list:
    return [intent(tool="search_patient"), select("search_patient"), {"name": name}]


async def test_a_patient_found_is_named_with_id_birth_date_and_next_steps(agent_for) -> None:
    agent = agent_for(*search("Sarah Okafor"), quality("success_rich"))
    _, result = await run(agent, "Can you find Sarah Okafor in the system?")
    answer = result.final_response
    assert answer.startswith("One patient found: Sarah Okafor (ID sokafor-004, born 1983-12-02")
    assert "You can now ask for her chart" in answer and "save a note for her" in answer
    assert result.model_calls == 4  # the answer is written by code, not by the model
    assert result.active_patient_id == "sokafor-004"


async def test_several_matches_are_listed_to_pick_from(agent_for) -> None:
    agent = agent_for(*search("James Wilson"), quality("success_partial"))
    _, result = await run(agent, "Find James Wilson")
    lines = result.final_response.splitlines()
    assert lines[0].startswith("I found") and "Which one did you mean?" in lines[0]
    listed = [line for line in lines if line.startswith("- James Wilson (ID jwilson-")]
    assert len(listed) >= 2 and all("born " in line for line in listed)
    assert "reply with the ID or the date of birth" in lines[-1]
    assert result.active_patient_id is None


async def test_none_found_says_so_and_offers_other_searches(agent_for) -> None:
    agent = agent_for(*search("Zoltan Quimby"), quality("error_fatal"))
    _, result = await run(agent, "Find Zoltan Quimby")
    answer = result.final_response
    assert "could not find a patient named 'Zoltan Quimby'" in answer
    assert "family name" in answer and "patient's ID" in answer


async def test_a_reply_picking_a_listed_patient_selects_them_by_code(agent_for) -> None:
    agent = agent_for(*search("James Wilson"), quality("success_partial"))
    await run(agent, "Find James Wilson")
    _, result = await run(agent, "The one born in 1945.")
    assert result.active_patient_id == "jwilson-1945"
    assert result.final_response.startswith("James Wilson (ID jwilson-1945, born 1945-")
    assert "is now the selected patient. You can now ask for his chart" in result.final_response
    assert result.model_calls == 0


async def test_a_pick_with_a_question_selects_the_patient_and_answers_it(agent_for) -> None:
    agent = agent_for(*search("James Wilson"), quality("success_partial"), intent())
    await run(agent, "Find James Wilson")
    _, result = await run(agent, "The second one please, what's his QTc?")
    assert result.active_patient_id == "jwilson-1972"
    assert "selected patient" not in result.final_response
    assert "455" in result.final_response  # read from his record


async def test_a_patient_named_by_id_is_selected_and_an_unknown_id_keeps_them(agent_for) -> None:
    agent = agent_for(intent())
    _, result = await run(agent, "Patient sokafor-004: what is she allergic to?")
    assert result.active_patient_id == "sokafor-004"
    _, result = await run(agent, "And pt zzz999?")
    assert "could not find a patient with ID 'zzz-999'" in result.final_response
    assert result.active_patient_id == "sokafor-004"


@pytest.mark.parametrize("message", ["Look up James Wilson.", "find kwame asante in the system"])
async def test_a_message_asking_only_to_find_a_patient_searches_for_them(
    agent_for, message: str
) -> None:
    agent = agent_for(
        intent("DIRECT"), select("search_knowledge_base"), {"name": "x"}, quality("no_results")
    )
    _, result = await run(agent, message)
    assert result.tool_calls[0].tool == "search_patient"
    assert result.tool_calls[0].args["name"].lower().rstrip(".") in message.lower()


@pytest.mark.parametrize(("message", "held"), [("k+?", "Potassium 5.1"), ("allergys", "enicillin")])
async def test_a_terse_question_on_a_selected_patient_is_answered_from_the_record(
    agent_for, message: str, held: str
) -> None:
    agent = agent_for(intent(tool="search_knowledge_base"))
    _, result = await run(agent, message, patient_id="abc-123")
    assert held in result.final_response and result.final_response.endswith("[1]")
    assert result.model_calls == 1  # the request's class; the answer is the record's lines


async def test_the_chart_read_this_turn_is_the_one_record_source(agent_for) -> None:
    """The message names the patient, so their summary is loaded first; the chart read
    after it holds the same lines, and the answer cites the chart alone."""
    agent = agent_for(
        intent(tool="get_patient_chart"),
        select("get_patient_chart"),
        {"patient_id": "abc-123"},
        quality("success_rich"),
        answering(("John Smith", "The patient is John Smith.")),
    )
    _, result = await run(agent, "Summarise the chart of patient abc-123")
    assert [s.title for s in result.sources_used] == ["EHR chart of John Smith (abc-123)"]
    assert result.final_response == "The patient is John Smith. [1]"

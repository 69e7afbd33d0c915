"""Patient answers that help, on the real embedded FHIR server over HTTP: a patient found is
named with id, birth date and what can be done next; several are listed to pick from; none
found says so and offers other ways to search."""

from __future__ import annotations

import pytest
from fhir_server import embedded_fhir

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
        return Agent.create(
            settings, llm, build_registry(), classifiers={}, fhir=EHRClient(fhir_url)
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

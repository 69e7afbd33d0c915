"""Two faults the real-model scenarios exposed, pinned down with a scripted model.

1. After a patient search the router loops back because the chart is still needed, but
   a model that proposed the search again ended the loop on the duplicate guard, so the
   chart was never read ("Find patient Maria Garcia and check her chart").
2. The tiny test model often echoes its synthesis system prompt (re-wrapped); the clinician
   saw the assistant's internal instructions as the answer.
"""

from __future__ import annotations

import httpx
import pytest

from docgemma.agent.answer import clean_answer
from docgemma.agent.events import Decision
from docgemma.agent.prompts import SYNTHESIZE_SYSTEM
from docgemma.config import Settings
from docgemma.llm.scripted import ScriptedBackend

from .conftest import patient_ids_named, turn

ANSWER = "Hypertension is blood pressure persistently at or above 130/80 mmHg."


@pytest.fixture(autouse=True)
def scripted(settings: Settings) -> None:
    settings.backend = "scripted"


def intent(kind: str) -> dict:
    return {"intent": kind, "task_summary": "task", "suggested_tool": None}


def quality(q: str = "success_rich") -> dict:
    return {"quality": q, "brief_summary": "summary"}


async def test_search_proposed_again_still_reads_the_chart(app_agent, fhir: httpx.Client) -> None:
    [maria] = patient_ids_named(fhir, "Maria Garcia")
    llm = ScriptedBackend(
        [
            intent("TOOL_NEEDED"),
            {"tool_name": "search_patient"},
            {"name": "Maria Garcia"},
            quality(),
            {"tool_name": "search_patient"},  # the model proposes the finished search again
            {"patient_id": maria},
            quality(),
            "Chart reviewed.",
        ]
    )
    async with app_agent(llm) as agent:
        events, result = await turn(agent, "Find patient Maria Garcia and check her chart")
    assert [(c.tool, c.args, c.error_type) for c in result.tool_calls] == [
        ("search_patient", {"name": "Maria Garcia"}, None),
        ("get_patient_chart", {"patient_id": maria}, None),
    ]
    picks = [e.decision for e in events if isinstance(e, Decision) and e.node == "tool_select"]
    assert picks == ["search_patient", "search_patient", "get_patient_chart"]
    assert result.final_response == "Chart reviewed."


async def test_echoed_system_prompt_never_reaches_the_clinician(app_agent) -> None:
    rewrapped = " ".join(SYNTHESIZE_SYSTEM.render().split("\n\n")[0].split())
    echo = f"{rewrapped}\n\n{SYNTHESIZE_SYSTEM.render()}\n{ANSWER}\n{SYNTHESIZE_SYSTEM.render()}"
    # the echoing draft is withheld and the model writes again (docgemma.agent.checked_answer)
    async with app_agent(ScriptedBackend([intent("DIRECT"), echo, ANSWER])) as agent:
        _, result = await turn(agent, "What is hypertension?")
    assert ANSWER in result.final_response
    flat = " ".join(result.final_response.split())
    for sentence in (
        "You are a clinical decision-support assistant",
        "Provide a clear, concise response to the clinician based on the information below",
        "Do not reference any system internals, tool names, or databases",
    ):
        assert sentence not in flat


def test_clean_answer_keeps_ordinary_text_that_resembles_instructions() -> None:
    text = "Guidelines recommend lifestyle change.\n- Include potassium in the panel"
    assert clean_answer(text, {}, SYNTHESIZE_SYSTEM.render()) == text

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

from docgemma.agent.prompts import SYNTHESIZE_FROM_MEMORY_SYSTEM
from docgemma.config import Settings
from docgemma.events import Decision
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
            {"statements": []},
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
    assert result.final_response.startswith("The sources I found do not answer")


async def test_echoed_system_prompt_never_reaches_the_clinician(app_agent) -> None:
    system = SYNTHESIZE_FROM_MEMORY_SYSTEM.render()
    rewrapped = " ".join(system.split("\n\n")[0].split())
    echo = f"{rewrapped}\n\n{system}\n{ANSWER}\n{system}"
    # asked for the model's own answer, the echoing one is not shown; the decline stands
    async with app_agent(ScriptedBackend([intent("DIRECT"), echo])) as agent:
        _, result = await turn(agent, "What is hypertension?", show_unverified=True)
    flat = " ".join(result.final_response.split())
    assert ANSWER not in flat and "Searched:" in flat
    for sentence in (
        "You are a clinical decision-support assistant",
        "Answer the clinician's question clearly and concisely from general medical knowledge",
        "Do not reference any system internals, tool names, or databases",
    ):
        assert sentence not in flat

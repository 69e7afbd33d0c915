"""The design's scenarios on the real remote tools, through the whole graph: the app's
agent with the real registry and the embedded FHIR server, a scripted model, and openFDA
answered by respx with a recorded label (no dofetilide label was recorded, so the
boxed-warning warfarin label stands in for it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import pytest
import respx
from recorded import recorded
from scripted_quotes import statements

from docgemma.config import Settings
from docgemma.llm.scripted import ScriptedBackend
from docgemma.llm.types import Message
from docgemma.tools.drug_safety import OPENFDA_LABEL_URL

from .conftest import assert_clean_answer, turn

BOXED = recorded("openfda", "label_jantoven_warfarin_boxed.json")
PLAIN = recorded("openfda", "label_lipitor_atorvastatin_no_boxed.json")
SAID = {
    "dofetilide": (
        "can cause major or fatal bleeding",
        "The label warns of major or fatal bleeding.",
    ),
    "amiodarone": (
        "uncontrolled hypothyroidism, renal impairment",
        "Use caution in uncontrolled hypothyroidism and renal impairment.",
    ),
}
"""Per drug asked: a quote from its recorded label and the statement resting on it."""


@pytest.fixture(autouse=True)
def online(settings: Settings) -> None:
    settings.backend = "scripted"
    settings.offline = False


def safety_model(drug: str) -> ScriptedBackend:
    """Answers each structured call by its schema's fields, so retries need no reordering."""

    def respond(_: Sequence[Message], schema: type | None) -> Any:
        fields = set(schema.model_fields) if schema else set()
        if "statements" in fields:
            return statements(schema, [SAID[drug]])
        if "intent" in fields:
            return {"intent": "TOOL_NEEDED", "task_summary": "FDA warnings", "suggested_tool": None}
        if "tool_name" in fields:
            return {"tool_name": "check_drug_safety"}
        if "drug_name" in fields:
            return {"drug_name": drug}
        if "quality" in fields:
            return {"quality": "success_rich", "brief_summary": "label found"}
        if "strategy" in fields:
            return {"strategy": "retry_same", "reasoning": "transient timeout"}
        raise AssertionError(f"unexpected structured call {schema.__name__}")

    return ScriptedBackend(responder=respond)


def synthesis_prompt(llm: ScriptedBackend) -> str:
    (call,) = [
        c for c in llm.calls if c.schema is not None and "statements" in c.schema.model_fields
    ]
    return "\n".join(
        m.content if isinstance(m.content, str) else str(m.content) for m in call.messages
    )


async def test_dofetilide_fda_warnings_reach_the_synthesis_prompt(app_agent) -> None:
    llm = safety_model("dofetilide")
    with respx.mock:
        route = respx.get(OPENFDA_LABEL_URL).mock(return_value=httpx.Response(200, json=BOXED))
        async with app_agent(llm) as agent:
            _, result = await turn(agent, "Check FDA warnings for dofetilide")
    assert route.call_count == 1
    assert 'openfda.generic_name:"dofetilide"' in route.calls[0].request.url.params["search"]
    prompt = " ".join(synthesis_prompt(llm).split())
    assert "BLEEDING RISK" in prompt and "can cause major or fatal bleeding" in prompt
    assert [c.tool for c in result.tool_calls] == ["check_drug_safety"]
    assert result.tool_calls[0].error_type is None
    assert result.final_response == SAID["dofetilide"][1] + " [1]"
    assert result.confidence_level == "high"
    assert_clean_answer(result)


async def test_amiodarone_timeout_is_retried_then_synthesised(app_agent) -> None:
    llm = safety_model("amiodarone")
    with respx.mock:
        route = respx.get(OPENFDA_LABEL_URL).mock(
            side_effect=[httpx.ReadTimeout("openFDA slow"), httpx.Response(200, json=PLAIN)]
        )
        async with app_agent(llm) as agent:
            _, result = await turn(agent, "Check FDA warnings for amiodarone")
    assert route.call_count == 2
    assert "error_handler" in result.nodes_visited
    visits = result.nodes_visited
    assert visits.count("tool_execute") == 2
    assert visits.index("error_handler") < len(visits) - 1 - visits[::-1].index("tool_execute")
    assert [c.error_type for c in result.tool_calls] == ["timeout", None]
    prompt = " ".join(synthesis_prompt(llm).split())
    assert "uncontrolled hypothyroidism, renal impairment" in prompt  # the label's warnings
    assert result.final_response == SAID["amiodarone"][1] + " [1]"
    assert_clean_answer(result)

"""The nine integration scenarios on the real embedded model (Gemma 3 270M via llama.cpp).

Fake tools, the default routing (embedding classifiers for intent, tool and result
on the embedded backend) and short synthesis to keep the run to a few minutes. A
270M model does not choose well; what must hold is that every path completes: every
constrained output validates (no fallback), the loop stays within MAX_STEPS, no
exception escapes, and no write happens without approval.
"""

from __future__ import annotations

import pytest

from docgemma.agent.outcome import ApprovalDecision, TurnResult
from docgemma.agent.rules import MAX_STEPS, MAX_TOTAL_RETRIES
from docgemma.agent.service import Agent
from docgemma.config import Settings
from docgemma.llm.types import ImageInput
from docgemma.tools.base import ToolOutcome

from .conftest import run
from .fakes import FakeTools

pytestmark = pytest.mark.real_model

SCENARIOS = [
    ("hello", "Hello, how are you?"),
    ("definition", "What is hypertension?"),
    ("drug_safety", "Check FDA warnings for dofetilide"),
    ("multi_tool", "Find patient Maria Garcia and check her chart"),
    ("interactions", "Check interactions between warfarin, aspirin, and ibuprofen"),
    ("timeout", "Check FDA warnings for amiodarone"),
    ("three_matches", "Search for patient James Wilson"),
    ("image", "What do you see?"),
    ("prescribe", "Prescribe metformin 500mg for abc-123"),
]
VALID_NODES = {
    "input_assembly",
    "intent_classify",
    "tool_select",
    "tool_execute",
    "result_classify",
    "error_handler",
    "synthesize",
}


def check(result: TurnResult) -> None:
    assert result.final_response.strip()
    assert not result.fallback_used, "a constrained output failed validation twice"
    assert set(result.nodes_visited) <= VALID_NODES and result.nodes_visited[0] == "input_assembly"
    assert len(result.tool_calls) <= MAX_STEPS + MAX_TOTAL_RETRIES
    assert result.nodes_visited.count("tool_select") <= MAX_STEPS + MAX_TOTAL_RETRIES
    if result.pending_approval is None:
        assert result.nodes_visited[-1] == "synthesize"


@pytest.mark.parametrize(("name", "query"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
async def test_scenario_on_the_real_model(
    real_llm, settings: Settings, name: str, query: str
) -> None:
    settings.node_generation = {"synthesize": {"max_tokens": 40}}
    settings.tool_timeout_s = 0.5
    tools = FakeTools()

    if name == "timeout":
        tools.queue("check_drug_safety", 2.0)
    if name == "three_matches":
        tools.queue(
            "search_patient",
            ToolOutcome(
                data={
                    "candidates": [
                        {"patient_id": f"p{i}", "name": "James Wilson"} for i in range(3)
                    ]
                },
                error_type="multiple_patient_matches",
                patient_matches=3,
                entity="James Wilson",
            ),
        )
    agent = Agent.create(
        settings, real_llm, tools.registry()
    )  # default routing for the embedded backend
    image = ImageInput(data=b"\x89PNG not analysed") if name == "image" else None
    _, result = await run(agent, query, thread=name, image=image)
    check(result)
    if name in ("hello", "definition"):
        assert tools.calls == []
    if name == "image":
        assert any("cannot read images" in n for n in result.notices)
    if name == "timeout":  # the first call times out; the error handler retries, then it answers
        assert "error_handler" in result.nodes_visited
        assert len(tools.calls_to("check_drug_safety")) == 2
        assert result.tool_calls[-1].error_type is None
    if name == "three_matches" and tools.calls:
        assert result.clarification_requested and "James Wilson" in result.final_response
    if name == "prescribe" and result.pending_approval is not None:
        items = [i async for i in agent.resume(name, ApprovalDecision(action="approve"))]
        check(items[-1])
        assert len(tools.calls_to("prescribe_medication")) == 1
    assert all(ctx.approved_by for _, ctx in tools.calls_to("prescribe_medication"))

"""A tool that times out, on the real embedded model (Gemma 3 270M via llama.cpp).

Fake tools, the default routing (embedding classifiers for intent, tool and result on
the embedded backend) and short synthesis. The other paths (direct answers, one and two
tools, several matches, an image, a prescription) run on the real model once, with the
real tools and FHIR server, in ``tests/integration/test_scenarios_real.py`` and
``test_approval_flow.py``, and scripted in ``test_graph_paths.py``. What must hold here
whatever the model writes: every constrained output validates (no fallback), the loop
stays within MAX_STEPS, the timed-out call is retried once and the retry answers.
"""

from __future__ import annotations

import pytest

from docgemma.agent.outcome import TurnResult
from docgemma.agent.rules import MAX_STEPS, MAX_TOTAL_RETRIES
from docgemma.agent.service import Agent
from docgemma.config import Settings

from .conftest import run
from .fakes import FakeTools

pytestmark = pytest.mark.real_model

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


async def test_a_timed_out_tool_is_retried_on_the_real_model(real_llm, settings: Settings) -> None:
    settings.node_generation = {"synthesize": {"max_tokens": 40}}
    settings.tool_timeout_s = 0.5
    tools = FakeTools()
    tools.queue("check_drug_safety", 2.0)  # the first call outlasts the timeout
    agent = Agent.create(settings, real_llm, tools.registry())  # default embedded routing
    _, result = await run(agent, "Check FDA warnings for amiodarone", thread="timeout")
    check(result)
    assert "error_handler" in result.nodes_visited
    assert len(tools.calls_to("check_drug_safety")) == 2
    assert result.tool_calls[-1].error_type is None

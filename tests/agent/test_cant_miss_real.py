"""On the real embedded model (Gemma 3 270M): whatever it writes about a sudden severe
headache, the answer opens with subarachnoid haemorrhage and what to do first."""

from __future__ import annotations

import pytest

from docgemma.agent.service import Agent
from docgemma.config import Settings
from docgemma.red_flags.table import BY_ID

from .conftest import run
from .fakes import FakeTools

pytestmark = pytest.mark.real_model


async def test_the_real_models_answer_opens_with_the_cant_miss_condition(
    real_llm, settings: Settings
) -> None:
    settings.node_generation = {"synthesize": {"max_tokens": 40}}
    agent = Agent.create(settings, real_llm, FakeTools().registry())
    question = "Man of 50 with a sudden explosive headache at the gym an hour ago. Differential?"
    _, result = await run(agent, question)
    opening = result.final_response.split("\n\n")[0]
    assert opening.startswith("**Can't miss") and "subarachnoid haemorrhage" in opening
    assert BY_ID["thunderclap_headache"].first in result.final_response
    assert result.model_calls >= 1  # the real model wrote the rest

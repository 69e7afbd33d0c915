"""Every conversation a front door runs takes the same options as ``TurnRunner``."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import pytest

from docgemma.agent.runner import TurnRunner
from docgemma.agent.service import Agent
from docgemma.api.triage_mode import TriageConversation

sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))
from ui_fakes import FakeAgent  # noqa: E402


def options(function) -> dict[str, object]:
    """Keyword options and their defaults, as a front door may pass them."""
    return {
        name: p.default
        for name, p in inspect.signature(function).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


@pytest.mark.parametrize("runner", [Agent, TriageConversation, FakeAgent])
@pytest.mark.parametrize("method", ["run_turn", "resume"])
def test_a_runner_takes_every_option_a_front_door_may_send(runner, method) -> None:
    wanted = options(getattr(TurnRunner, method))
    taken = options(getattr(runner, method))
    assert {name: taken.get(name, "missing") for name in wanted} == wanted

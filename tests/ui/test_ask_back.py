"""The page's path to the agent: a message about an image that is not attached, or with
no clinical content, is answered by code before any model call."""

from __future__ import annotations

import pytest

from docgemma.agent.rules import ATTACH_IMAGE
from docgemma.agent.service import Agent
from docgemma.agent.small_talk import REPLIES, SmallTalk
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.registry import build_registry
from docgemma.ui.handlers import Handlers
from docgemma.ui.session import SessionState


@pytest.mark.parametrize(
    ("message", "reply"),
    [
        ("Got a portable chest film back. Here it is.", ATTACH_IMAGE),
        ("Please see the attached ECG", ATTACH_IMAGE),
        ("thanks, bye", REPLIES[SmallTalk.FAREWELL]),
    ],
)
async def test_the_page_asks_back_without_a_model_call(settings, tmp_path, message, reply):
    llm = ScriptedBackend([])  # any model call would find nothing scripted
    agent = Agent.create(settings, llm, build_registry(), classifiers={})

    async def get_agent():
        return agent

    h = Handlers(settings, get_agent, None, tmp_path / "uploads")
    session = SessionState()
    async for _ in h.submit({"text": message, "files": []}, session, None):
        pass
    assert session.history[-1]["role"] == "assistant"
    assert session.history[-1]["content"].startswith(reply)
    assert llm.calls == []

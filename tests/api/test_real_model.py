"""The API as shipped (``create_api`` with the default runtime) on the real embedded model:
Gemma 3 270M through llama.cpp, the real tools, a real FHIR server. A 270M model's
wording is not asserted; what must hold is the protocol: steps, answer tokens that are
the answer, reasoning only on the thinking channel, and the turn stored."""

from __future__ import annotations

import pytest

from docgemma.api.client import DocGemmaClient

from .conftest import KEYS, Server

pytestmark = pytest.mark.real_model


@pytest.fixture
def real_server(real_api_server: Server) -> Server:
    """The channels are the subject, not the answer: the session's API on the tiny model."""
    return real_api_server


async def test_a_question_on_the_real_model(real_server: Server) -> None:
    async with DocGemmaClient(real_server.url, KEYS["clinic-a"], timeout=600) as api:
        turn = await api.chat("What is hypertension?")
        history = await api.history(turn.session_id)
    assert turn.error is None and turn.done is not None
    final = turn.done.final_response
    assert final.strip() and "<think" not in final and "<unused" not in final
    assert "<think" not in turn.answer
    started = [s.node for s in turn.steps if s.status == "started"]
    assert started[0] == "input_assembly" and started[-1] == "synthesize"
    assert [m["content"] for m in history["messages"]] == ["What is hypertension?", final]


async def test_thinking_goes_to_its_own_channel_on_the_real_model(real_server: Server) -> None:
    """Nothing of the reasoning reaches the answer or the stored conversation. A base model
    may answer by repeating its thinking word for word, and then the text rightly stands on
    both channels: the tiny test model did so for "What is the first-line drug for hypertension?"
    once answers from memory got their own prompt (80fd4a6), so the question is one whose
    thinking and answer differ."""
    async with DocGemmaClient(real_server.url, KEYS["clinic-a"], timeout=600) as api:
        turn = await api.chat("Explain how ACE inhibitors lower blood pressure.", thinking=True)
        history = await api.history(turn.session_id)
    assert turn.done is not None and turn.thinking.strip()
    assert turn.thinking.strip()[:40] not in turn.done.final_response
    assert all(turn.thinking.strip()[:40] not in m["content"] for m in history["messages"])

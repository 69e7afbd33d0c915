"""A dictated note on the real embedded model: whatever the model extracts, the approval card
holds the clinician's words and a note type of the vocabulary."""

from __future__ import annotations

import pytest

from docgemma.agent.service import Agent
from docgemma.config import Settings
from docgemma.tools.vocabulary import NOTE_TYPE

from .conftest import run
from .fakes import FakeTools

pytestmark = pytest.mark.real_model

DICTATED = "Bisoprolol reduced to 2.5 mg daily, HR 48."


async def test_a_dictated_note_reaches_the_card_word_for_word(real_llm, settings: Settings) -> None:
    tools = FakeTools()
    agent = Agent.create(settings, real_llm, tools.registry())
    _, result = await run(agent, f"Save a note for abc-123: {DICTATED}")
    pending = result.pending_approval
    assert pending is not None and pending.tool == "save_clinical_note"
    assert pending.args["note_text"] == DICTATED
    assert pending.args["note_type"] in NOTE_TYPE.values
    assert pending.args["patient_id"] == "abc-123" and tools.calls == []

"""A dictated note on the real embedded model: whatever the model extracts for the note's
arguments, the call that reaches the approval card holds the clinician's words and a note
type of the vocabulary. One extraction call (the argument stage), then the code's check."""

from __future__ import annotations

import pytest

from docgemma.agent.grounding import Evidence
from docgemma.agent.nodes.tool_select import argument_messages
from docgemma.agent.validation import validate_call
from docgemma.tools.registry import build_registry
from docgemma.tools.vocabulary import NOTE_TYPE

pytestmark = pytest.mark.real_model

DICTATED = "Bisoprolol reduced to 2.5 mg daily, HR 48."


async def test_a_dictated_note_reaches_the_card_word_for_word(real_llm) -> None:
    registry = build_registry()
    spec = registry["save_clinical_note"]
    state = {
        "user_query": f"Save a note for abc-123: {DICTATED}",
        "extracted_entities": {"patient_ids": ["abc-123"], "drug_mentions": ["bisoprolol"]},
    }
    proposal = await real_llm.structured(argument_messages(state, registry, spec.name), spec.args)
    args = proposal.value.model_dump(mode="json", exclude_none=True)
    check, parsed = validate_call(spec, args, evidence=Evidence.of(state), has_image=False)
    assert check.ok and parsed is not None
    assert parsed.note_text == DICTATED and parsed.note_type in NOTE_TYPE.values
    assert parsed.patient_id == "abc-123"

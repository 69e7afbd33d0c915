"""Messages with no clinical content are answered by code: no model call, no tool, and never
the previous answer again. Short clinical questions still reach the agent."""

from __future__ import annotations

import pytest

from docgemma.agent.small_talk import REPLIES, SmallTalk, small_talk
from docgemma.llm.scripted import ScriptedBackend

from .conftest import intent, run

NO_CONTENT = [
    (".", SmallTalk.FRAGMENT),
    ("...?", SmallTalk.FRAGMENT),
    ("Could you", SmallTalk.FRAGMENT),
    ("um, so", SmallTalk.FRAGMENT),
    ("ok", SmallTalk.FRAGMENT),
    ("Hello there", SmallTalk.GREETING),
    ("hey, good morning!", SmallTalk.GREETING),
    ("Thank you very much!", SmallTalk.THANKS),
    ("cheers, that's great", SmallTalk.THANKS),
    ("okay, goodbye", SmallTalk.FAREWELL),
    ("thanks, bye", SmallTalk.FAREWELL),
    ("Thanks, that's all for her.", SmallTalk.THANKS),
    ("Good morning, can you help me with a quick clinical question?", SmallTalk.GREETING),
    ("can I ask you something", SmallTalk.FRAGMENT),
    ("finished with him for today", SmallTalk.FAREWELL),
]
CLINICAL = [
    "BP?",
    "K 6.1 — what now?",
    "dose?",
    "What now?",
    "Paxlovid?",
    "INR 4.2",
    "and in pregnancy?",
    "sats 88%",
    "No, not that one",
    "her potassium?",
    "his meds",
    "and now?",
    "quick question about warfarin",
]


@pytest.mark.parametrize(("message", "kind"), NO_CONTENT)
def test_no_clinical_content(message: str, kind: SmallTalk) -> None:
    assert small_talk(message, last_answer="Losartan can cause dizziness.") is kind


@pytest.mark.parametrize("message", CLINICAL)
def test_short_clinical_questions_have_content(message: str) -> None:
    assert small_talk(message, last_answer="Losartan can cause dizziness.") is None


def test_a_confirmation_answers_a_question_the_assistant_asked() -> None:
    assert small_talk("yes", last_answer="Did you mean glipizide?") is None
    assert small_talk("ok thanks", last_answer="Did you mean glipizide?") is SmallTalk.THANKS
    assert small_talk("yes", last_answer="Glipizide is a sulfonylurea.") is SmallTalk.FRAGMENT


@pytest.mark.parametrize(
    ("message", "kind"), [(".", SmallTalk.FRAGMENT), ("ok bye", SmallTalk.FAREWELL)]
)
async def test_the_agent_answers_by_code_not_with_its_last_answer(
    make_agent, tools, message: str, kind: SmallTalk
) -> None:
    llm = ScriptedBackend([intent("DIRECT", "gout"), "Gout flares: purines, alcohol."])
    agent = make_agent(llm)
    _, first = await run(agent, "What sets off a gout flare?", show_unverified=True)
    assert first.model_calls == 2
    _, reply = await run(agent, message)
    assert reply.final_response == REPLIES[kind] and "purines" not in reply.final_response
    assert reply.model_calls == 0 and len(llm.calls) == 2 and tools.calls == []
    assert "Answered without the model" in [e.title for e in reply.reasoning_timeline]


async def test_a_short_clinical_question_goes_to_the_agent(make_agent, tools) -> None:
    llm = ScriptedBackend([intent("DIRECT", "hyperkalaemia"), "Repeat the level, ECG."])
    _, result = await run(make_agent(llm), "K 6.1 — what now?", show_unverified=True)
    assert result.model_calls == 2 and result.final_response.endswith("Repeat the level, ECG.")

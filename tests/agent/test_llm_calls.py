"""The synthesis stream's two channels: a reasoning span the model writes unasked goes out
as thinking tokens, before the answer tokens that follow it, and never into the answer."""

from __future__ import annotations

from docgemma.agent.events import AnswerToken, ThinkingToken
from docgemma.llm.scripted import ScriptedBackend

from .conftest import intent, run


async def test_a_reasoning_span_streams_as_thinking_then_the_answer(make_agent) -> None:
    llm = ScriptedBackend(
        [intent("DIRECT", "define"), "<think>recall the definition first</think>It is high BP."]
    )
    events, result = await run(make_agent(llm), "What is hypertension?")
    channels = [e for e in events if isinstance(e, AnswerToken | ThinkingToken)]
    thinking = "".join(e.text for e in channels if isinstance(e, ThinkingToken))
    answer = "".join(e.text for e in channels if isinstance(e, AnswerToken))
    assert thinking == "recall the definition first"
    assert answer.strip() == "It is high BP." == result.final_response
    last_thought = max(i for i, e in enumerate(channels) if isinstance(e, ThinkingToken))
    first_word = min(i for i, e in enumerate(channels) if isinstance(e, AnswerToken))
    assert last_thought < first_word

"""Synthesis thinks first only when the turn asks for it; the reasoning streams apart and
is never part of the answer, the conversation or the checkpoint."""

from __future__ import annotations

from docgemma.agent.generation import synthesis_thinking
from docgemma.config import Settings
from docgemma.events import AnswerToken, ThinkingToken
from docgemma.llm.scripted import ScriptedBackend

from .conftest import intent, prompts, run


def pieces(events, kind) -> list[str]:
    return [e.text for e in events if isinstance(e, kind)]


async def test_thinking_streams_reasoning_apart_and_keeps_it_out_of_history(
    make_agent, settings
) -> None:
    settings.thinking_family = "generic"  # the default profile's would be Qwen's delimiters
    llm = ScriptedBackend(
        [
            intent("DIRECT"),
            "Consider renal dosing of the get_patient_chart data.</think>",
            "Reduce the dose when eGFR is low.",
        ]
    )
    agent = make_agent(llm)
    events, result = await run(
        agent, "Dose advice?", thinking=True, thinking_budget=40, show_unverified=True
    )
    thought = "".join(pieces(events, ThinkingToken))
    answer = "".join(pieces(events, AnswerToken))
    assert "Consider renal dosing" in thought and "Patient Record" in thought
    assert "get_patient_chart" not in thought
    assert "renal dosing" not in answer and "renal dosing" not in result.final_response
    assert result.final_response.endswith("Reduce the dose when eGFR is low.")
    assert result.model_calls == 2  # thinking and answer count as one synthesis call
    think_call, answer_call = [c for c in llm.calls if c.kind == "complete"]
    assert think_call.prompt.endswith("<think>\n") and think_call.max_tokens == 40
    assert (answer_call.temperature, answer_call.max_tokens) == (0.5, 256)
    snapshot = await agent.graph.aget_state({"configurable": {"thread_id": "t"}})
    assert "renal dosing" not in repr(snapshot.values)  # never stored in the checkpoint

    llm.queue(intent("DIRECT"), "Yes.")
    await run(agent, "And in the elderly?", show_unverified=True)
    later = prompts(llm)[-2:]
    assert "Reduce the dose when eGFR is low." in later[-1]  # the answer is history
    assert all("renal dosing" not in p for p in later)  # the reasoning is not


async def test_thinking_follows_settings_unless_the_turn_overrides(
    make_agent, settings: Settings
) -> None:
    settings.thinking = True
    llm = ScriptedBackend([intent("DIRECT"), "hmm</think>", "Answer one.", intent("DIRECT")])
    agent = make_agent(llm)
    events, _ = await run(agent, "First?", show_unverified=True)
    assert pieces(events, ThinkingToken) == ["hmm"]
    llm.queue("Answer two.")
    events, result = await run(agent, "Second?", thinking=False, show_unverified=True)
    assert not pieces(events, ThinkingToken) and result.final_response.endswith("Answer two.")
    assert llm.calls[-1].kind == "generate"


def test_the_turn_budget_caps_thinking_and_the_minimum(settings: Settings) -> None:
    assert synthesis_thinking(settings) is None  # off by default
    settings.thinking_min_tokens = 100
    cfg = synthesis_thinking(settings, True, 64)
    assert cfg is not None and (cfg.max_tokens, cfg.min_tokens) == (64, 64)
    assert synthesis_thinking(settings, True).max_tokens == settings.thinking_max_tokens

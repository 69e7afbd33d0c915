"""The triage graph's logic on the scripted model: routes, red flags, demographics, fallbacks."""

from __future__ import annotations

import pytest

from docgemma.events import AnswerToken, ThinkingToken
from docgemma.llm.errors import ModelUnavailable
from docgemma.red_flags.table import BY_ID
from docgemma.severity import Severity
from docgemma.triage.answer import TriageAnswer
from docgemma.triage.demographics import AgeBand, Demographics
from docgemma.triage.input_check import EMPTY_REPLY, NOT_ENGLISH_NOTICE
from docgemma.triage.patient_text import FALLBACK_MESSAGE


async def run(service, message, thread="t1", **kwargs):
    events, answer = [], None
    async for item in service.run_turn(thread, message, **kwargs):
        if isinstance(item, TriageAnswer):
            answer = item
        else:
            events.append(item)
    return answer, events


async def test_symptoms_are_retrieved_reasoned_and_answered(make_service, kb):
    service = make_service(
        reply="I'm sorry you feel rough. This sounds like flu. It scored 0.81 on the search."
    )
    answer, events = await run(service, "I have a fever and a dry cough since Monday")
    assert kb.queries == ["fever cough"]
    assert answer.condition == "flu" and answer.condition_title == "Flu"
    assert answer.severity is Severity.SELF_CARE and answer.action == Severity.SELF_CARE.action
    assert [s.id for s in answer.sources][0] == "flu" and 0 < answer.sources[0].score <= 1
    assert len(answer.follow_ups) == 3 and "flu" in answer.follow_ups[0]
    assert answer.answer.startswith("I'm sorry you feel rough. This sounds like flu.")
    assert "0.81" not in answer.answer and "score" not in answer.answer
    assert Severity.SELF_CARE.action in answer.answer and answer.answer.endswith("?")
    assert "The symptoms match the flu page" in answer.reasoning
    assert "Prediction: (flu, Self-care)" in answer.reasoning
    assert answer.llm_calls == ["route", "reason", "predict", "respond"]
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingToken))
    shown = "".join(e.text for e in events if isinstance(e, AnswerToken))
    assert "The symptoms match the flu page" in thinking
    assert "flu page" not in shown and "sounds like flu" in shown
    history = await service.history("t1")
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert history[1]["content"] == answer.answer
    assert all("flu page" not in m["content"] for m in history)


async def test_budget_forcing_appends_wait_and_streams_it(make_service, settings):
    service = make_service()
    answer, events = await run(service, "fever and cough")
    assert settings.triage_min_waits == 1
    assert "Wait" in answer.reasoning
    prompts = [c.prompt for c in service.deps.llm.calls if c.kind == "complete"]
    assert len(prompts) == 3  # thinking, thinking after "Wait", the conclusion
    assert "Flu brings a sudden fever" in prompts[0]


async def test_thinking_off_predicts_straight_from_the_pages(make_service):
    service = make_service()
    answer, _ = await run(service, "fever and cough", thinking=False)
    assert answer.llm_calls == ["route", "predict", "respond"]
    predict = [c for c in service.deps.llm.calls if c.kind == "structured"][-1]
    assert "Flu brings a sudden fever" in predict.prompt


@pytest.mark.parametrize(
    ("action", "message"),
    [("reply", "Hello! Nice to meet you."), ("clarify", "What symptoms do you have?")],
)
async def test_greetings_and_vague_messages_are_answered_without_search(
    make_service, kb, action, message
):
    service = make_service(route={"action": action, "message": message})
    answer, _ = await run(service, "hi there")
    assert kb.queries == [] and answer.route == action
    assert answer.answer.endswith("?") and answer.severity is None
    assert answer.llm_calls == ["route"]
    assert [m["role"] for m in await service.history("t1")] == ["user", "assistant"]


async def test_red_flag_overrides_the_model_and_skips_the_router(make_service):
    service = make_service(prediction={"condition": "flu", "severity": "Self-care"})
    answer, _ = await run(service, "Crushing chest pain and I am short of breath")
    assert answer.severity is Severity.A_AND_E
    assert answer.predicted_severity is Severity.SELF_CARE
    assert "route" not in answer.llm_calls
    assert "chest_pain_breathless" in answer.reasoning
    assert "Self-care → A&E" in answer.reasoning
    assert answer.answer.startswith("Call 999 now")
    assert answer.red_flags and "Chest pain" in answer.red_flags[0]


async def test_a_baby_under_three_months_with_fever_goes_to_a_and_e(make_service):
    adult, _ = await run(
        make_service(prediction={"condition": "flu", "severity": "Urgent Primary Care"}),
        "temperature of 38.5 since this morning",
        demographics=Demographics(age_band=AgeBand.YEARS_16_TO_64),
    )
    baby, _ = await run(
        make_service(prediction={"condition": "flu", "severity": "Urgent Primary Care"}),
        "temperature of 38.5 since this morning",
        demographics=Demographics(age_band=AgeBand.UNDER_3_MONTHS),
    )
    assert adult.severity is Severity.URGENT_PRIMARY_CARE and not adult.red_flags
    assert baby.severity is Severity.A_AND_E
    assert "baby under 3 months" in baby.answer
    assert "age under 3 months" in baby.reasoning


async def test_demographics_reach_the_prompts(make_service):
    service = make_service()
    await run(service, "fever", demographics=Demographics(pregnant=True))
    assert all("currently pregnant" in c.prompt for c in service.deps.llm.calls)


async def test_nothing_relevant_falls_back_to_the_literature(make_service, kb):
    service = make_service(
        route={"action": "retrieve", "search_query": "zzz"},
        prediction={"condition": "inconclusive", "severity": "Urgent Primary Care"},
    )
    answer, _ = await run(service, "a purple spot on my elbow")
    assert answer.used_literature
    assert [s.kind for s in answer.sources] == ["literature"]
    assert answer.condition == "inconclusive"
    assert "searching the medical literature" in answer.reasoning


async def test_model_unavailable_gives_the_fallback(make_service):
    service = make_service(route=ModelUnavailable("down"))
    answer, _ = await run(service, "I have a headache")
    assert answer.fallback and FALLBACK_MESSAGE in answer.answer


async def test_model_unavailable_still_gives_red_flag_advice(make_service):
    service = make_service(prediction=ModelUnavailable("down"))
    answer, _ = await run(service, "My dad's face is drooping and his speech is slurred")
    assert answer.fallback and answer.severity is Severity.A_AND_E
    assert answer.answer.startswith("Call 999 now: these can be signs of a stroke")
    assert FALLBACK_MESSAGE in answer.answer


async def test_model_unavailable_while_answering(make_service):
    service = make_service(reply=ModelUnavailable("down"))
    answer, _ = await run(service, "fever and cough")
    assert answer.fallback and answer.severity is Severity.SELF_CARE
    assert Severity.SELF_CARE.action in answer.answer and FALLBACK_MESSAGE in answer.answer


async def test_empty_message_gets_a_friendly_prompt(make_service):
    service = make_service()
    answer, events = await run(service, "   ")
    assert answer.answer == EMPTY_REPLY and events == [] and service.deps.llm.calls == []


async def test_another_language_is_answered_in_english_with_a_notice(make_service):
    answer, _ = await run(make_service(), "J'ai mal à la tête et de la fièvre depuis hier")
    assert NOT_ENGLISH_NOTICE in answer.notices
    assert answer.answer.startswith("I'm sorry you feel unwell")


async def test_long_input_is_truncated_with_a_notice(make_service, settings):
    service = make_service()
    answer, _ = await run(service, "fever and cough " * 2000)
    assert any("only the first" in n for n in answer.notices)
    history = await service.history("t1")
    assert len(history[0]["content"]) == settings.max_message_chars


async def test_second_turn_sees_the_first_in_its_prompts(make_service):
    service = make_service()
    await run(service, "fever and cough")
    await run(service, "it is worse today")
    route_prompts = [c.prompt for c in service.deps.llm.calls if c.schema is not None][-2:]
    assert "Patient: fever and cough" in route_prompts[0]
    history = await service.history("t1")
    assert [m["role"] for m in history] == ["user", "assistant"] * 2


async def test_the_search_is_given_the_persons_earlier_messages(make_service, kb):
    """For a flow that sums up the conversation (``kb_retrieval=steered``); never the
    assistant's answers, never the current message twice."""
    service = make_service()
    await run(service, "fever and cough")
    await run(service, "fever and cough, worse today")
    assert kb.earlier == [[], ["fever and cough"]]


async def test_code_searches_a_symptom_the_model_answered_with_small_talk(make_service, kb):
    service = make_service(route={"action": "reply", "message": "Hello!"})
    answer, _ = await run(service, "sudden fever, aching body and a dry cough")
    assert kb.queries == ["sudden fever, aching body and a dry cough"]
    assert answer.condition == "flu" and "searching instead" in answer.reasoning


async def test_the_triage_graph_uses_the_table_the_clinician_agent_uses(make_service):
    """A row written for clinicians' can't-miss diagnoses guards the patient too."""
    service = make_service(prediction={"condition": "migraine", "severity": "Self-care"})
    answer, _ = await run(service, "A sudden headache, the worst of my life, came on in seconds")
    assert answer.severity is Severity.A_AND_E
    assert "thunderclap_headache" in answer.reasoning
    assert answer.answer.startswith(BY_ID["thunderclap_headache"].patient.advice)

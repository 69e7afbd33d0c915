"""The triage graph end to end on the real embedded model and the real knowledge base.

Gemma 3 270M does not triage well; these tests hold what must be true whatever it
says: a schema-valid prediction over the retrieved pages, reasoning and answer on
separate channels, a history of user and assistant messages only, and the red-flag
rules winning over the model.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from docgemma.events import AnswerToken, ThinkingToken
from docgemma.kb import KnowledgeBase
from docgemma.kb.assisted import AssistedSearch
from docgemma.severity import Severity
from docgemma.triage.answer import TriageAnswer
from docgemma.triage.schemas import INCONCLUSIVE
from docgemma.triage.service import TriageService

pytestmark = pytest.mark.real_model


@pytest.fixture
def service(settings, real_llm):
    tuned = settings.model_copy(update={"triage_thinking_max_tokens": 48, "triage_min_waits": 1})
    return TriageService.create(tuned, real_llm, AssistedSearch(KnowledgeBase.from_settings(tuned)))


async def _turn(service, thread, message):
    reasoning, shown, answer = [], [], None
    async for item in service.run_turn(thread, message):
        if isinstance(item, ThinkingToken):
            reasoning.append(item.text)
        elif isinstance(item, AnswerToken):
            shown.append(item.text)
        elif isinstance(item, TriageAnswer):
            answer = item
    return "".join(reasoning), "".join(shown), answer


async def test_a_turn_on_the_real_model(service):
    reasoning, shown, answer = await _turn(
        service, "real-1", "I have had a sore throat, a blocked nose and sneezing for three days"
    )
    assert answer is not None and not answer.fallback
    assert answer.route == "respond" and answer.sources  # code searches whatever the router says
    ids = {s.id for s in answer.sources}
    assert answer.condition in ids | {INCONCLUSIVE}
    assert isinstance(answer.severity, Severity) and answer.action == answer.severity.action
    assert "Prediction: (" in reasoning and len(answer.follow_ups) == 3
    assert all(0.0 <= s.score <= 1.0 for s in answer.sources)
    assert reasoning.strip() and answer.answer.endswith("?")
    assert "Prediction:" not in answer.answer and "Prediction:" not in shown
    history = await service.history("real-1")
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert history[1]["content"] == answer.answer
    assert "Prediction:" not in history[1]["content"]


async def test_red_flags_win_on_the_real_model(service):
    reasoning, shown, answer = await _turn(
        service, "real-2", "Crushing chest pain for an hour and I'm short of breath and sweating"
    )
    assert answer.severity is Severity.A_AND_E
    assert "chest_pain_breathless" in reasoning
    assert answer.answer.startswith("Call 999 now") and shown.startswith("Call 999 now")


async def test_the_full_context_on_the_real_model(service):
    """The scored pages, most serious first, in the reasoning and the reply written from the
    analysis: still a schema-valid prediction and a reply without scores or internals."""
    service.deps = replace(service.deps, context="full")
    reasoning, _, answer = await _turn(
        service, "real-3", "I have had a sore throat for three days and now a fever"
    )
    assert answer is not None and not answer.fallback and answer.route == "respond"
    assert answer.condition in {s.id for s in answer.sources} | {INCONCLUSIVE}
    assert "Prediction: (" in reasoning and "similarity" not in answer.answer
    assert answer.answer.endswith("?") and "Prediction:" not in answer.answer

"""Patient triage as an API mode: the triage graph's answer in the agent's shape.

The API streams and stores turns as ``TraceEvent``s and a ``TurnResult``; the triage
graph emits the same events as the agent, and this adapter turns its answer into a
``TurnResult``, so one ``translate`` and one store serve both modes. Triage proposes no
record changes, so a session in this mode never has an approval to resume. A profile's
prompt and tools are the clinician agent's settings and do not apply here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from docgemma.agent.outcome import (
    NO_SOURCE_ASKED,
    NOTHING_PENDING,
    ApprovalDecision,
    TurnResult,
)
from docgemma.agent.runner import TurnItem
from docgemma.api.turn_setup import TurnSetup
from docgemma.experts import Profile
from docgemma.llm.types import ImageInput
from docgemma.tools.base import Source
from docgemma.triage.answer import TriageAnswer
from docgemma.triage.demographics import Demographics


def turn_result(answer: TriageAnswer) -> TurnResult:
    """The patient's reply; urgency and red flags also as notices for clients that show them."""
    notices = list(answer.notices)
    if answer.severity is not None:
        notices.append(f"Urgency: {answer.severity.action}")
    notices.extend(f"Warning sign: {flag}" for flag in answer.red_flags)
    settled = answer.condition not in (None, "inconclusive") and not answer.fallback
    return TurnResult(
        final_response=answer.answer,
        confidence_level="medium" if settled else "low",
        confidence_reason=(
            "the reply rests on the condition page that fitted"
            if settled
            else "no condition page fitted, or the model was unavailable"
        ),
        sources_used=[Source(title=s.title) for s in answer.sources],
        follow_up_questions=answer.follow_ups,
        notices=notices,
        fallback_used=answer.fallback,
        nodes_visited=[answer.route] if answer.route else [],
    )


class TriageConversation:
    """One triage service as a ``TurnRunner``."""

    def __init__(self, service: Any) -> None:
        self._service = service

    async def run_turn(
        self,
        thread_id: str,
        message: str,
        *,
        image: ImageInput | bytes | None = None,
        patient_id: str | None = None,
        thinking: bool | None = None,
        thinking_budget: int | None = None,
        demographics: Demographics | None = None,
        show_unverified: bool = False,
    ) -> AsyncIterator[TurnItem]:
        """``demographics`` (None: as the thread was told before) reach the rules and
        prompts; ``thinking`` off skips the budget-forced reasoning step. The rest mean
        nothing to a patient's triage: ``patient_id`` is a clinician's chart,
        ``show_unverified`` an unsourced answer (triage answers only from its pages and
        red-flag rules), ``thinking_budget`` a clinician's setting (triage's budget is
        its strategy's), and no front door sends triage an ``image``."""
        budget = True if thinking is None else thinking
        async for item in self._service.run_turn(
            thread_id, message, thinking=budget, demographics=demographics
        ):
            yield turn_result(item) if isinstance(item, TriageAnswer) else item

    async def resume(
        self,
        thread_id: str,
        decision: ApprovalDecision,
        *,
        thinking: bool | None = None,
        thinking_budget: int | None = None,
    ) -> AsyncIterator[TurnItem]:
        yield TurnResult(
            final_response=NOTHING_PENDING,
            confidence_level="low",
            confidence_reason=NO_SOURCE_ASKED,
        )


class TriageMode:
    """The triage mode; ``get_service`` may build the service on first use."""

    def __init__(self, get_service: Callable[[], Awaitable[Any]]) -> None:
        self._get_service = get_service

    async def for_profile(self, profile: Profile, setup: TurnSetup) -> TriageConversation:
        """The same service for every profile and tenant: triage searches the condition
        pages (never a tenant's documents) and has no tools to switch off."""
        return TriageConversation(await self._get_service())

    async def forget(self, thread_id: str) -> None:
        await (await self._get_service()).checkpointer.adelete_thread(thread_id)

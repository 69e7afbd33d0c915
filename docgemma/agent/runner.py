"""What a front door asks of a conversation: one turn, or a decision on a proposed write.

The page, the HTTP API and the CLI are written against ``TurnRunner`` alone. The
clinician agent (``agent.service.Agent``) implements it, and so does patient triage
behind the API (``api.triage_mode.TriageConversation``). Each runner yields the shared
trace events (``docgemma.events``) while its graph runs and a ``TurnResult`` last. A
runner takes every option a front door may send and says in its docstring which ones
mean nothing to it (a chart id to triage, demographics to the clinician agent).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from docgemma.agent.outcome import ApprovalDecision, TurnResult
from docgemma.events import TraceEvent
from docgemma.llm.types import ImageInput
from docgemma.triage.demographics import Demographics

TurnItem = TraceEvent | TurnResult
"""What a turn yields: events while it runs, then one ``TurnResult``."""


class TurnRunner(Protocol):
    def run_turn(
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
        """Answer one message of the conversation ``thread_id``."""
        ...

    def resume(
        self,
        thread_id: str,
        decision: ApprovalDecision,
        *,
        thinking: bool | None = None,
        thinking_budget: int | None = None,
    ) -> AsyncIterator[TurnItem]:
        """Continue a turn paused on a proposed record write with the clinician's decision."""
        ...

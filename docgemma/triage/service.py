"""``TriageService``: the one entry point of the triage mode for the UI, tests and experiments.

A turn checks the input (empty, too long, not English), runs the graph while its
events stream out, and ends with a ``TriageAnswer``. The visible history is kept
per thread by a LangGraph checkpointer and holds only user and assistant messages.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from docgemma.checkpoint_serde import checkpoint_serializer, stream_turn
from docgemma.config import Settings
from docgemma.events import TraceEvent, parse_event
from docgemma.llm.base import LLMBackend
from docgemma.llm.thinking import ThinkingConfig
from docgemma.triage import red_flags
from docgemma.triage.answer import TriageAnswer, answer_from_state
from docgemma.triage.demographics import Demographics
from docgemma.triage.deps import TriageDeps
from docgemma.triage.graph import build_triage_graph
from docgemma.triage.input_check import EMPTY_REPLY, check_input
from docgemma.triage.knowledge import KnowledgeSearch, LiteratureSearch
from docgemma.triage.patient_text import fallback_text
from docgemma.triage.schemas import RouteDecision
from docgemma.triage.state import ChatMessage

log = logging.getLogger(__name__)


def triage_thinking(
    settings: Settings, enabled: bool | None = None, min_waits: int | None = None
) -> ThinkingConfig | None:
    """Budget forcing for the reasoning step, or None when switched off."""
    if not (settings.triage_thinking if enabled is None else enabled):
        return None
    return ThinkingConfig(
        family=settings.thinking_delimiters(),
        max_tokens=settings.triage_thinking_max_tokens,
        num_ignore=settings.triage_min_waits if min_waits is None else min_waits,
        answer_max_tokens=64,
        temperature=0.0,
    )


class TriageService:
    def __init__(self, deps: TriageDeps, checkpointer: BaseCheckpointSaver) -> None:
        self.deps = deps
        self.checkpointer = checkpointer
        self.graph = build_triage_graph(checkpointer)
        self._locks: dict[str, asyncio.Lock] = {}

    @classmethod
    def create(
        cls,
        settings: Settings,
        llm: LLMBackend,
        kb: KnowledgeSearch,
        *,
        literature: LiteratureSearch | None = None,
        checkpointer: BaseCheckpointSaver | None = None,
    ) -> TriageService:
        if checkpointer is None:
            from langgraph.checkpoint.memory import InMemorySaver

            checkpointer = InMemorySaver(serde=checkpoint_serializer())
        llm.prepare([RouteDecision])
        deps = TriageDeps(
            settings=settings,
            llm=llm,
            kb=kb,
            literature=literature,
            thinking=triage_thinking(settings),
            context=settings.triage_context,
        )
        return cls(deps, checkpointer)

    async def history(self, thread_id: str) -> list[ChatMessage]:
        snapshot = await self.graph.aget_state({"configurable": {"thread_id": thread_id}})
        return list(snapshot.values.get("messages") or [])

    async def run_turn(
        self,
        thread_id: str,
        message: str,
        *,
        demographics: Demographics | None = None,
        thinking: ThinkingConfig | None | bool = True,
    ) -> AsyncIterator[TraceEvent | TriageAnswer]:
        """Events while the graph runs, the ``TriageAnswer`` last.

        ``demographics``: what the patient told this turn; None keeps the thread's earlier
        ones (none at first).

        ``thinking``: ``True`` keeps the service's budget forcing, ``False`` or ``None``
        switches it off for this turn, a ``ThinkingConfig`` replaces it (experiments).
        """
        checked = check_input(message, self.deps.settings.max_message_chars)
        if checked.empty:
            yield TriageAnswer(answer=EMPTY_REPLY, route="empty")
            return
        if isinstance(thinking, bool):
            config = self.deps.thinking if thinking else None
        else:
            config = thinking
        deps = replace(self.deps, thinking=config)
        graph_input: dict[str, Any] = {"message": checked.text, "notices": checked.notices}
        if demographics is not None:  # None keeps what the thread was told before
            graph_input["demographics"] = demographics.model_dump(mode="json")
        run_config = {"configurable": {"thread_id": thread_id}}
        values: dict[str, Any] = {}
        async with self._locks.setdefault(thread_id, asyncio.Lock()):
            try:
                async for mode, payload in stream_turn(self.graph, graph_input, run_config, deps):
                    if mode == "custom":
                        yield parse_event(payload)
                    else:
                        values = payload
            except Exception:  # a turn ends with an answer (and the rules' advice), never a trace
                log.exception("triage turn failed on thread %s", thread_id)
                fired = red_flags.check(checked.text, demographics or Demographics())
                yield TriageAnswer(
                    answer=fallback_text(red_flags.floor(fired), fired),
                    severity=red_flags.floor(fired),
                    red_flags=[f.title for f in fired],
                    fallback=True,
                    notices=checked.notices,
                    route="fallback",
                )
                return
        yield answer_from_state(values, [])

    async def ask(self, thread_id: str, message: str, **kwargs: Any) -> TriageAnswer:
        result: TriageAnswer | None = None
        async for item in self.run_turn(thread_id, message, **kwargs):
            if isinstance(item, TriageAnswer):
                result = item
        assert result is not None
        return result

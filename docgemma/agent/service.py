"""``Agent``: the one entry point the UI, the API, the CLI and the experiments use.

A turn streams trace events while the graph runs and ends with a ``TurnResult``.
Conversation memory is a LangGraph checkpointer keyed by thread, so history, image
findings and a write awaiting approval survive between turns and across restarts
(SQLite file in the data folder). Turns on one thread are serialised, which is what
makes a double approval write once.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command, Interrupt
from pydantic import BaseModel

from docgemma.agent.answer.compose import FALLBACK_MESSAGE
from docgemma.agent.classifiers import load_classifiers
from docgemma.agent.deps import AgentDeps, PatientSummaryFn
from docgemma.agent.entities import drug_dictionary
from docgemma.agent.generation import synthesis_thinking
from docgemma.agent.graph import build_graph
from docgemma.agent.knowledge import KnowledgeSource
from docgemma.agent.outcome import (
    NO_SOURCE_ASKED,
    NOTHING_PENDING,
    WAITS_FOR_APPROVAL,
    ApprovalDecision,
    ApprovalRequest,
    TurnResult,
    empty_message_result,
)
from docgemma.agent.runner import TurnItem
from docgemma.agent.schemas import (
    ImageFindings,
    IntentClassification,
    ResultAssessment,
    RetryStrategy,
)
from docgemma.agent.turn_result import pending_result, turn_result
from docgemma.checkpoint_serde import checkpoint_serializer, stream_turn
from docgemma.config import Settings
from docgemma.ehr.ids import InvalidId, check_fhir_id
from docgemma.events import ApprovalRequested, parse_event
from docgemma.experts import Profile
from docgemma.llm.base import LLMBackend
from docgemma.llm.thinking import ThinkingConfig
from docgemma.llm.types import ImageInput
from docgemma.routing import Classifier
from docgemma.tools.base import ToolRegistry
from docgemma.tools.facts import ToolRole
from docgemma.triage.demographics import Demographics

log = logging.getLogger(__name__)

PAUSE_KEY = "__interrupt__"
"""Where LangGraph puts a paused graph's interrupts in its output (its documented key)."""
STALE_DECISION = (
    "That decision was for an earlier proposal; a newer one ({summary}) is waiting. "
    "Nothing was written: please review the current proposal and decide again."
)


def checkpoint_path(settings: Settings) -> Path:
    return Path(settings.data_dir) / "checkpoints.sqlite"


async def sqlite_checkpointer(settings: Settings) -> BaseCheckpointSaver:
    """The app's conversation memory: one SQLite file in the data folder."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = checkpoint_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    saver = AsyncSqliteSaver(await aiosqlite.connect(str(path)), serde=checkpoint_serializer())
    await saver.setup()
    return saver


def response_schemas(registry: ToolRegistry) -> list[type[BaseModel]]:
    """Every schema the graph asks the model to fill, for the backend's start-up check."""
    schemas: list[type[BaseModel]] = [
        IntentClassification,
        ResultAssessment,
        RetryStrategy,
        ImageFindings,
    ]
    if len(registry):
        schemas += [registry.selection_model(), registry.selection_model(allow_none=True)]
    schemas.extend(spec.args for spec in registry)
    return schemas


class Agent:
    def __init__(self, deps: AgentDeps, checkpointer: BaseCheckpointSaver) -> None:
        self.deps = deps
        self.settings = deps.settings
        self.checkpointer = checkpointer
        self.graph = build_graph(registry=deps.registry, checkpointer=checkpointer)
        self._locks: dict[str, asyncio.Lock] = {}
        self._closers: list[Callable[[], Awaitable[None]]] = []
        self._profiles: dict[tuple[str, bool, bool], Agent] = {}

    @classmethod
    def create(
        cls,
        settings: Settings,
        llm: LLMBackend,
        registry: ToolRegistry,
        *,
        classifiers: dict[str, Classifier] | None = None,
        checkpointer: BaseCheckpointSaver | None = None,
        patient_summary: PatientSummaryFn | None = None,
        http: Any = None,
        fhir: Any = None,
        knowledge: KnowledgeSource | None = None,
    ) -> Agent:
        """``classifiers=None`` loads what settings ask for; ``{}`` means LLM only."""
        if checkpointer is None:
            from langgraph.checkpoint.memory import InMemorySaver

            checkpointer = InMemorySaver(serde=checkpoint_serializer())
        if classifiers is None:
            classifiers = load_classifiers(settings)
        drug_dictionary()  # load once now rather than in the first turn
        llm.prepare(response_schemas(registry))  # a schema the backend cannot use fails here
        deps = AgentDeps(
            settings=settings,
            llm=llm,
            registry=registry,
            classifiers=classifiers,
            patient_summary=patient_summary,
            http=http,
            fhir=fhir,
            knowledge=knowledge,
        )
        return cls(deps, checkpointer)

    def for_profile(self, profile: Profile, *, tools: bool = True, knowledge: bool = True) -> Agent:
        """This agent as an expert profile sets it up: its tools, persona and answer temperature.

        Same model, memory and per-thread locks; built once per profile and switches.
        Tools the registry does not have are ignored. ``knowledge=False`` leaves out the
        knowledge-base search and the grounding of direct answers (a request's
        ``enable_rag``); ``tools=False`` leaves out every other tool (``enable_tools``).
        """
        key = (profile.name, tools, knowledge)
        agent = self._profiles.get(key)
        if agent is None:
            registry = self.deps.registry
            if profile.tools is not None:
                registry = ToolRegistry(s for s in registry if s.name in profile.tools)
            retrieval = ToolRole.SEARCHES_KNOWLEDGE_BASE
            registry = ToolRegistry(
                s for s in registry if (knowledge if s.role is retrieval else tools)
            )
            generation = dict(self.settings.node_generation)
            generation["synthesize"] = {
                **generation.get("synthesize", {}),
                "temperature": profile.temperature,
            }
            settings = self.settings.model_copy(update={"node_generation": generation})
            self.deps.llm.prepare(response_schemas(registry))
            deps = replace(
                self.deps,
                registry=registry,
                settings=settings,
                persona=profile.system_prompt,
                knowledge=self.deps.knowledge if knowledge else None,
            )
            agent = Agent(deps, self.checkpointer)
            agent._locks = self._locks
            self._profiles[key] = agent
        return agent

    def configured(self, **changes: Any) -> Agent:
        """This agent with some run-time context replaced (``AgentDeps`` fields), sharing
        its graph, memory and locks: e.g. one tenant's documents for one request."""
        sibling = copy.copy(self)
        sibling.deps = replace(self.deps, **changes)
        return sibling

    def _lock(self, thread_id: str) -> asyncio.Lock:
        return self._locks.setdefault(thread_id, asyncio.Lock())

    async def pending_approval(self, thread_id: str) -> ApprovalRequest | None:
        snapshot = await self.graph.aget_state({"configurable": {"thread_id": thread_id}})
        for item in snapshot.interrupts:
            return ApprovalRequest.model_validate(item.value)
        return None

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
        """Answer one message; events while the graph runs, the ``TurnResult`` last.

        ``patient_id`` selects the active patient; ``""`` clears it and ``None`` keeps
        the conversation's current one (set earlier or found by a patient search).
        ``thinking``/``thinking_budget`` override the settings for this turn only: the
        model reasons (streamed as ``ThinkingToken`` events, never stored) before it
        answers. ``show_unverified``: when no source answers, add the model's own answer
        under the unverified label (this turn only; never by default). ``demographics``
        are not read: the chart, not what a client says of the patient, tells who they are.
        """
        text = (message or "").strip()
        if not text:
            yield empty_message_result()
            return
        try:
            if patient_id and patient_id.strip():
                patient_id = check_fhir_id(patient_id.strip(), "patient id")
        except InvalidId as exc:  # refused, never trimmed to the id it starts with
            yield TurnResult(
                final_response=str(exc),
                notices=[str(exc)],
                confidence_level="low",
                confidence_reason="the request was refused before any lookup",
            )
            return
        notices: list[str] = []
        if len(text) > self.settings.max_message_chars:
            text = text[: self.settings.max_message_chars]
            notices.append(
                f"Your message was longer than {self.settings.max_message_chars} characters; "
                "only the first part was read."
            )
        if isinstance(image, bytes):
            image = ImageInput(data=image)
        if image is not None and len(image.data) > self.settings.max_image_bytes:
            notices.append(
                f"The image is larger than {self.settings.max_image_bytes // (1024 * 1024)} MB "
                "and was not used."
            )
            image = None
        async with self._lock(thread_id):
            pending = await self.pending_approval(thread_id)
            if pending is not None:
                notices.append(
                    f"The earlier proposal ({pending.summary}) was not approved and was discarded."
                )
            graph_input: dict[str, Any] = {"user_query": text, "has_image": image is not None}
            if patient_id is not None:  # "" clears the selection; None keeps it
                graph_input["active_patient_id"] = patient_id.strip() or None
            thinking_config = synthesis_thinking(self.settings, thinking, thinking_budget)
            async for item in self._run(
                thread_id, graph_input, image, notices, thinking_config, show_unverified
            ):
                yield item

    async def resume(
        self,
        thread_id: str,
        decision: ApprovalDecision,
        *,
        thinking: bool | None = None,
        thinking_budget: int | None = None,
        show_unverified: bool = False,
    ) -> AsyncIterator[TurnItem]:
        """Continue a turn paused on an EHR write with the clinician's decision."""
        async with self._lock(thread_id):
            pending = await self.pending_approval(thread_id)
            if pending is None:
                yield TurnResult(
                    final_response=NOTHING_PENDING,
                    notices=[NOTHING_PENDING],
                    confidence_level="low",
                    confidence_reason=NO_SOURCE_ASKED,
                )
                return
            if decision.idempotency_key not in (None, pending.idempotency_key):
                stale = STALE_DECISION.format(summary=pending.summary)
                yield TurnResult(
                    final_response=stale,
                    notices=[stale],
                    pending_approval=pending,
                    confidence_reason=WAITS_FOR_APPROVAL,
                )
                return
            async for item in self._run(
                thread_id,
                Command(resume=decision.model_dump(mode="json")),
                None,
                [],
                synthesis_thinking(self.settings, thinking, thinking_budget),
                show_unverified,
            ):
                yield item

    async def _run(
        self,
        thread_id: str,
        graph_input: Any,
        image: ImageInput | None,
        notices: list[str],
        thinking: ThinkingConfig | None,
        show_unverified: bool = False,
    ) -> AsyncIterator[TurnItem]:
        config = {"configurable": {"thread_id": thread_id}}
        deps = replace(
            self.deps,
            thread_id=thread_id,
            image=image,
            thinking=thinking,
            show_unverified=show_unverified,
        )
        values: dict[str, Any] = {}
        interrupts: tuple[Interrupt, ...] = ()
        try:
            # a pause adds its interrupt to the state the stream brings
            async for mode, payload in stream_turn(self.graph, graph_input, config, deps):
                if mode == "custom":
                    yield parse_event(payload)
                    continue
                values = dict(payload)
                interrupts = values.pop(PAUSE_KEY, interrupts)
        except Exception:  # the turn must end with an answer, not a stack trace
            log.exception("agent turn failed on thread %s", thread_id)
            yield TurnResult(
                final_response=FALLBACK_MESSAGE,
                confidence_level="low",
                confidence_reason="the turn failed before an answer was written",
                fallback_used=True,
                notices=notices,
                errors=["The assistant hit an internal error."],
            )
            return
        if interrupts:
            request = ApprovalRequest.model_validate(interrupts[0].value)
            yield ApprovalRequested(
                node="tool_execute",
                label="Waiting for approval",
                tool=request.tool,
                tool_label=request.tool_label,
                args=request.args,
                summary=request.summary,
            )
            yield pending_result(values, request, notices)
            return
        yield turn_result(values, notices)

    async def ask(self, thread_id: str, message: str, **kwargs: Any) -> TurnResult:
        """Run a turn and return only its result (scripts, experiments, the CLI)."""
        result: TurnResult | None = None
        async for item in self.run_turn(thread_id, message, **kwargs):
            if isinstance(item, TurnResult):
                result = item
        assert result is not None
        return result

    def on_close(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Release ``closer``'s resource with the agent (for what its builder owns)."""
        self._closers.append(closer)

    async def aclose(self) -> None:
        conn = getattr(self.checkpointer, "conn", None)
        if conn is not None:
            await conn.close()
        for closer in reversed(self._closers):
            await closer()
        self._closers.clear()

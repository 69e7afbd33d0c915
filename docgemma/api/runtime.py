"""What the API runs turns on: one conversation backend per mode, and health probes.

``mode`` dispatches through ``ModeBackend``: the clinician agent (``AgentMode``) and the
patient-triage graph (``docgemma.api.triage_mode.TriageMode``), both on one model. A mode
with no backend is refused per request. A request's ``TurnSetup`` (its tenant, and
whether retrieval and tools are on) shapes the backend it gets: the clinician agent then
searches that tenant's own documents, and only that tenant's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from docgemma.agent.outcome import ApprovalDecision
from docgemma.agent.runner import TurnItem, TurnRunner
from docgemma.api.tenant_knowledge import tenant_grounding
from docgemma.api.triage_mode import TriageMode
from docgemma.api.turn_setup import TurnSetup
from docgemma.config import Settings
from docgemma.events import ThinkingToken
from docgemma.experts import Mode, Profile
from docgemma.kb.documents import DocumentLibrary
from docgemma.llm.base import LLMBackend
from docgemma.llm.engine_process import EngineState
from docgemma.once import BuiltOnce

if TYPE_CHECKING:  # the agent graph (LangGraph) loads when the agent is built, not at import
    from docgemma.agent.service import Agent

log = logging.getLogger(__name__)


class ModeBackend(Protocol):
    async def for_profile(self, profile: Profile, setup: TurnSetup) -> TurnRunner: ...

    async def forget(self, thread_id: str) -> None:
        """Delete the thread's stored conversation state."""
        ...


class AgentMode:
    """The clinician agent as a mode; ``get_agent`` may build it on first use.

    With ``documents``, a session whose request keeps retrieval on searches its tenant's
    documents with the knowledge-base tool; where direct answers are grounded (the
    embedded models), the tenant's best passage is asked before the offline sources.
    """

    def __init__(
        self,
        get_agent: Callable[[], Awaitable[Agent]],
        documents: DocumentLibrary | None = None,
    ) -> None:
        self._get_agent = get_agent
        self._documents = documents

    async def for_profile(self, profile: Profile, setup: TurnSetup) -> TurnRunner:
        agent = (await self._get_agent()).for_profile(
            profile, tools=setup.tools, knowledge=setup.rag
        )
        if setup.rag and self._documents is not None:
            # the first use opens the store and loads the embedder: not on the event loop
            documents = await asyncio.to_thread(self._documents.for_tenant, setup.tenant)
            knowledge = agent.deps.knowledge
            if knowledge is not None:  # where direct answers are grounded (embedded models)
                threshold = agent.settings.document_grounding_threshold
                knowledge = tenant_grounding(documents, threshold, then=knowledge)
            agent = agent.configured(documents=documents, knowledge=knowledge)
        return agent

    async def forget(self, thread_id: str) -> None:
        await (await self._get_agent()).checkpointer.adelete_thread(thread_id)


class WithoutReasoning:
    """A backend whose reasoning is kept from the client (a profile's ``stream_reasoning``
    off): the model still reasons; its text is dropped here, before any stream."""

    def __init__(self, backend: TurnRunner) -> None:
        self._backend = backend

    async def run_turn(
        self, thread_id: str, message: str, **options: Any
    ) -> AsyncIterator[TurnItem]:
        async for item in self._backend.run_turn(thread_id, message, **options):
            if not isinstance(item, ThinkingToken):
                yield item

    async def resume(
        self, thread_id: str, decision: ApprovalDecision, **options: Any
    ) -> AsyncIterator[TurnItem]:
        async for item in self._backend.resume(thread_id, decision, **options):
            if not isinstance(item, ThinkingToken):
                yield item


@dataclass
class Runtime:
    modes: Mapping[Mode, ModeBackend]
    fhir_reachable: Callable[[], Awaitable[bool]]
    model_loaded: Callable[[], bool] = lambda: True
    model_state: Callable[[], EngineState] = lambda: "ok"
    """``ok``; ``starting`` before the model is loaded; ``restarting`` while its engine
    process comes back after a crash; ``failed`` when it cannot start (the log says why)."""
    documents: DocumentLibrary | None = None
    """The tenants' own knowledge bases; None: this server takes no uploads."""


def model_state_of(agent: Any | None) -> EngineState:
    """What health reports of an agent's model: its engine's state, if it has an engine."""
    if agent is None:
        return "starting"
    llm = getattr(getattr(agent, "deps", None), "llm", None)
    return getattr(llm, "state", "ok")


RuntimeFactory = Callable[[Settings], AbstractAsyncContextManager[Runtime]]


def document_library(settings: Settings) -> DocumentLibrary:
    """Every tenant's documents, in the knowledge base's Chroma store (opened on first use)."""
    from docgemma.kb.store import chroma_client

    return DocumentLibrary(
        lambda: chroma_client(settings), max_documents=settings.max_tenant_documents
    )


def ehr_probe(ehr: Any) -> Callable[[], Awaitable[bool]]:
    """A cheap FHIR read; any failure means unreachable (the reason is logged)."""

    async def probe() -> bool:
        try:
            await ehr.search("Patient", count=1)
        except Exception as exc:  # health reports, never raises
            log.warning("FHIR health probe failed: %s", exc)
            return False
        return True

    return probe


@asynccontextmanager
async def agent_runtime(
    settings: Settings, llm: LLMBackend | None = None
) -> AsyncIterator[Runtime]:
    """The API alone: the configured model (or ``llm``), the real tools, the configured or
    embedded EHR."""
    from docgemma.agent.factory import build_agent
    from docgemma.ehr.runtime import ehr_client
    from docgemma.triage.factory import build_triage

    with ehr_client(settings) as ehr:
        agent = await build_agent(settings, ehr, llm)

        async def built() -> Agent:
            return agent

        triage = BuiltOnce(lambda: build_triage(settings, agent.deps.llm)).get
        documents = document_library(settings)
        modes = {Mode.CLINICIAN: AgentMode(built, documents), Mode.TRIAGE: TriageMode(triage)}
        try:
            yield Runtime(
                modes=modes,
                fhir_reachable=ehr_probe(ehr),
                model_state=lambda: model_state_of(agent),
                documents=documents,
            )
        finally:
            await agent.aclose()


default_runtime: RuntimeFactory = agent_runtime


def hosted_runtime(
    get_agent: Callable[[], Awaitable[Any]],
    get_triage: Callable[[], Awaitable[Any]],
    ehr: Any,
    built: Callable[[], Any | None],
) -> RuntimeFactory:
    """The API inside the app: the app's own agent and triage service (each built once, on
    first use, shared with the page) and EHR."""

    @asynccontextmanager
    async def runtime(settings: Settings) -> AsyncIterator[Runtime]:
        documents = document_library(settings)
        yield Runtime(
            modes={
                Mode.CLINICIAN: AgentMode(get_agent, documents),
                Mode.TRIAGE: TriageMode(get_triage),
            },
            fhir_reachable=ehr_probe(ehr),
            model_loaded=lambda: built() is not None,
            model_state=lambda: model_state_of(built()),
            documents=documents,
        )

    return runtime

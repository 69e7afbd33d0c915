"""What the API runs turns on: one conversation backend per mode, and health probes.

``mode`` dispatches through ``ModeBackend``: the clinician agent (``AgentMode``) and the
patient-triage graph (``docgemma.api.triage_mode.TriageMode``), both on one model. A mode
with no backend is refused per request.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from docgemma.agent.events import TraceEvent
from docgemma.agent.outcome import ApprovalDecision, TurnResult
from docgemma.api.triage_mode import TriageMode
from docgemma.config import Settings
from docgemma.experts import Mode, Profile
from docgemma.llm.base import LLMBackend
from docgemma.llm.engine_process import EngineState
from docgemma.once import BuiltOnce

if TYPE_CHECKING:  # the agent graph (LangGraph) loads when the agent is built, not at import
    from docgemma.agent.service import Agent

log = logging.getLogger(__name__)


class ConversationBackend(Protocol):
    """One mode's graph as a profile configures it (``docgemma.agent.service.Agent``)."""

    def run_turn(
        self,
        thread_id: str,
        message: str,
        *,
        patient_id: str | None = None,
        thinking: bool | None = None,
        show_unverified: bool = False,
    ) -> AsyncIterator[TraceEvent | TurnResult]: ...

    def resume(
        self, thread_id: str, decision: ApprovalDecision, *, thinking: bool | None = None
    ) -> AsyncIterator[TraceEvent | TurnResult]: ...


class ModeBackend(Protocol):
    async def for_profile(self, profile: Profile) -> ConversationBackend: ...

    async def forget(self, thread_id: str) -> None:
        """Delete the thread's stored conversation state."""
        ...


class AgentMode:
    """The clinician agent as a mode; ``get_agent`` may build it on first use."""

    def __init__(self, get_agent: Callable[[], Awaitable[Agent]]) -> None:
        self._get_agent = get_agent

    async def for_profile(self, profile: Profile) -> ConversationBackend:
        return (await self._get_agent()).for_profile(profile)

    async def forget(self, thread_id: str) -> None:
        await (await self._get_agent()).checkpointer.adelete_thread(thread_id)


@dataclass
class Runtime:
    modes: Mapping[Mode, ModeBackend]
    fhir_reachable: Callable[[], Awaitable[bool]]
    model_loaded: Callable[[], bool] = lambda: True
    model_state: Callable[[], EngineState] = lambda: "ok"
    """``ok``; ``starting`` before the model is loaded; ``restarting`` while its engine
    process comes back after a crash; ``failed`` when it cannot start (the log says why)."""


def model_state_of(agent: Any | None) -> EngineState:
    """What health reports of an agent's model: its engine's state, if it has an engine."""
    if agent is None:
        return "starting"
    llm = getattr(getattr(agent, "deps", None), "llm", None)
    return getattr(llm, "state", "ok")


RuntimeFactory = Callable[[Settings], AbstractAsyncContextManager[Runtime]]


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
        modes = {Mode.CLINICIAN: AgentMode(built), Mode.TRIAGE: TriageMode(triage)}
        try:
            yield Runtime(
                modes=modes,
                fhir_reachable=ehr_probe(ehr),
                model_state=lambda: model_state_of(agent),
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
        yield Runtime(
            modes={Mode.CLINICIAN: AgentMode(get_agent), Mode.TRIAGE: TriageMode(get_triage)},
            fhir_reachable=ehr_probe(ehr),
            model_loaded=lambda: built() is not None,
            model_state=lambda: model_state_of(built()),
        )

    return runtime

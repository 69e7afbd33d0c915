"""What the API runs turns on: one conversation backend per mode, and health probes.

``mode`` dispatches through ``ModeBackend``: the clinician agent is wired here; the
patient-triage graph plugs in the same way (``for_profile`` returning an object with
``run_turn``/``resume``, and ``forget``). A mode with no backend is refused per request.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from docgemma.agent.events import TraceEvent
from docgemma.agent.outcome import ApprovalDecision, TurnResult
from docgemma.agent.service import Agent
from docgemma.config import Settings
from docgemma.experts import Mode, Profile
from docgemma.llm.base import LLMBackend

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

    with ehr_client(settings) as ehr:
        agent = await build_agent(settings, ehr, llm)

        async def built() -> Agent:
            return agent

        try:
            yield Runtime(modes={Mode.CLINICIAN: AgentMode(built)}, fhir_reachable=ehr_probe(ehr))
        finally:
            await agent.aclose()


default_runtime: RuntimeFactory = agent_runtime


def hosted_runtime(
    get_agent: Callable[[], Awaitable[Any]], ehr: Any, loaded: Callable[[], bool]
) -> RuntimeFactory:
    """The API inside the app: the app's own agent (built once, on first use) and EHR."""

    @asynccontextmanager
    async def runtime(settings: Settings) -> AsyncIterator[Runtime]:
        yield Runtime(
            modes={Mode.CLINICIAN: AgentMode(get_agent)},
            fhir_reachable=ehr_probe(ehr),
            model_loaded=loaded,
        )

    return runtime

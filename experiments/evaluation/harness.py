"""Run one case through the real agent: embedded FHIR server, recorded remote services.

``EvalEnvironment`` starts the embedded FHIR server (seeded with the synthetic patients,
in a throw-away folder) and builds the agent as the app does, knowledge source and SQLite
conversation memory included (the benchmark times a turn as a clinician gets it), except
that the remote tools reach ``RecordedServices`` instead of the network. Cases that inject
an EHR outage run on a second agent whose EHR client points at a closed port. A case's
write ends at the approval gate and is never approved, so the seeded record stays as it was
for every case; the sessions, which run after the cases, approve or reject writes through
the API as they specify.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from docgemma.agent.factory import chart_summary
from docgemma.agent.knowledge import knowledge_for
from docgemma.agent.outcome import TurnResult
from docgemma.agent.service import Agent, sqlite_checkpointer
from docgemma.config import Settings
from docgemma.ehr.client import EHRClient
from docgemma.ehr.server import serve_in_thread
from docgemma.events import AnswerToken, NodeStarted, TraceEvent
from docgemma.llm.base import LLMBackend
from docgemma.routing import Classifier
from docgemma.tools.literature_index import prepare_index
from docgemma.tools.registry import build_registry
from experiments.evaluation.cases import EvalCase, stored_image
from experiments.evaluation.services import RecordedServices

log = logging.getLogger(__name__)
CLOSED_EHR_URL = "http://127.0.0.1:9/fhir"
"""Nothing listens on the discard port: every EHR request fails to connect."""


@dataclass
class TurnRecord:
    """What one turn produced and when, measured from the call to ``run_turn``."""

    result: TurnResult
    events: list[TraceEvent] = field(default_factory=list)
    wall_s: float = 0.0
    first_event_s: float | None = None
    synthesis_start_s: float | None = None
    first_token_s: float | None = None
    requests: list[str] = field(default_factory=list)


class EvalEnvironment:
    """``async with EvalEnvironment(settings, llm) as env: record = await env.run(case)``."""

    def __init__(
        self,
        settings: Settings,
        llm: LLMBackend,
        *,
        classifiers: dict[str, Classifier] | None = None,
    ) -> None:
        self.settings = settings
        self.llm = llm
        # the literature index is derived from packaged abstracts: the app's own copy serves
        self._knowledge_settings = settings
        self._knowledge = knowledge_for(settings)
        self.services = RecordedServices()
        self._classifiers = classifiers
        self._stack = ExitStack()
        self._http = None
        self._agents: dict[bool, Agent] = {}
        self._fhir_url = ""
        self._memory: BaseCheckpointSaver | None = None

    async def __aenter__(self) -> EvalEnvironment:
        if self._knowledge is not None:  # built, as the app builds it at start
            await asyncio.to_thread(prepare_index, self._knowledge_settings)
        folder = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="dg-eval-")))
        self._fhir_url = self._stack.enter_context(serve_in_thread(folder / "fhir.db"))
        self.settings = self.settings.model_copy(update={"data_dir": folder, "offline": False})
        self._memory = await sqlite_checkpointer(self.settings)
        self._http = self.services.client()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._http is not None:
            await self._http.aclose()
        if self._memory is not None:
            await self._memory.conn.close()
        self._stack.close()

    def agent(self, ehr_down: bool = False) -> Agent:
        """The agent on the working EHR, or (``ehr_down``) on one that cannot be reached."""
        if ehr_down not in self._agents:
            ehr = EHRClient.from_settings(
                self.settings, CLOSED_EHR_URL if ehr_down else self._fhir_url
            )
            classifiers = self._classifiers
            if classifiers is None and self._agents:
                classifiers = next(iter(self._agents.values())).deps.classifiers
            self._agents[ehr_down] = Agent.create(
                self.settings,
                self.llm,
                build_registry(),
                classifiers=classifiers,
                patient_summary=chart_summary(ehr),
                http=self._http,
                fhir=ehr,
                knowledge=self._knowledge,
                checkpointer=self._memory,
            )
        return self._agents[ehr_down]

    async def run(self, case: EvalCase, thread: str | None = None) -> TurnRecord:
        inject = case.inject
        self.services.reset(inject if inject and inject.service != "fhir" else None)
        agent = await asyncio.to_thread(self.agent, bool(inject and inject.service == "fhir"))
        kwargs: dict[str, Any] = {}
        if case.patient_id:
            kwargs["patient_id"] = case.patient_id
        if case.image:
            kwargs["image"] = stored_image(case.image)
        record = await timed_turn(agent, thread or f"eval-{case.id}", case.query, **kwargs)
        record.requests = list(self.services.requests)
        return record


async def timed_turn(agent: Agent, thread: str, message: str, **kwargs: Any) -> TurnRecord:
    """One turn with the times of its first event, synthesis start and first answer token."""
    events: list[TraceEvent] = []
    record: TurnRecord | None = None
    start = time.perf_counter()
    first_event = synthesis = first_token = None
    async for item in agent.run_turn(thread, message, **kwargs):
        now = time.perf_counter() - start
        if isinstance(item, TurnResult):
            record = TurnRecord(result=item)
            break
        events.append(item)
        first_event = now if first_event is None else first_event
        if isinstance(item, NodeStarted) and item.node == "synthesize" and synthesis is None:
            synthesis = now
        if isinstance(item, AnswerToken) and first_token is None and item.text.strip():
            first_token = now
    if record is None:
        raise RuntimeError("the turn ended without a result")
    record.events = events
    record.wall_s = time.perf_counter() - start
    record.first_event_s, record.synthesis_start_s = first_event, synthesis
    record.first_token_s = first_token
    return record

"""The agent as the app, the API and the CLI run it: configured backend, the ten real
tools, conversation memory (SQLite, or PostgreSQL when configured), the shared HTTP
client and the EHR client."""

from __future__ import annotations

import asyncio
import logging

from docgemma.agent.checkpoints import open_checkpointer
from docgemma.agent.deps import PatientSummaryFn
from docgemma.agent.knowledge import knowledge_for
from docgemma.agent.service import Agent
from docgemma.config import Settings
from docgemma.ehr.client import EHRClient, EHRError
from docgemma.llm.base import LLMBackend
from docgemma.llm.registry import create_backend
from docgemma.tools.http import create_client
from docgemma.tools.registry import build_registry

log = logging.getLogger(__name__)


def chart_summary(ehr: EHRClient) -> PatientSummaryFn:
    """The selected patient's summary; None only when the EHR does not know the ID.

    Any other failure (EHR down, timeout) raises, so the turn says the record could not
    be loaded instead of telling the clinician the patient does not exist.
    """

    async def patient_summary(patient_id: str) -> str | None:
        try:
            return (await ehr.chart(patient_id)).text()
        except EHRError as exc:
            if exc.kind != "not_found":
                raise
            log.info("no chart for %s", patient_id)
            return None

    return patient_summary


async def build_agent(settings: Settings, ehr: EHRClient, llm: LLMBackend | None = None) -> Agent:
    """``llm``: a backend already made (tests run the real stack on a scripted model)."""
    checkpointer = await open_checkpointer(settings)
    if llm is None:  # loading a GGUF blocks for seconds
        llm = await asyncio.to_thread(create_backend, settings)
    http = create_client(settings)
    agent = await asyncio.to_thread(
        Agent.create,
        settings,
        llm,
        build_registry(),
        checkpointer=checkpointer,
        patient_summary=chart_summary(ehr),
        http=http,
        fhir=ehr,
        knowledge=knowledge_for(settings),
    )
    agent.on_close(llm.aclose)
    agent.on_close(http.aclose)
    return agent

"""The agent as the app and the CLI run it: configured backend, the ten real tools,
SQLite conversation memory, the shared HTTP client and the EHR client."""

from __future__ import annotations

import asyncio
import logging

from docgemma.agent.service import Agent, sqlite_checkpointer
from docgemma.config import Settings
from docgemma.ehr.client import EHRClient, EHRError
from docgemma.llm.registry import create_backend
from docgemma.tools.http import create_client
from docgemma.tools.registry import build_registry

log = logging.getLogger(__name__)


async def build_agent(settings: Settings, ehr: EHRClient) -> Agent:
    async def patient_summary(patient_id: str) -> str | None:
        try:
            return (await ehr.chart(patient_id)).text()
        except EHRError as exc:
            log.info("no chart for %s: %s", patient_id, exc.kind)
            return None

    checkpointer = await sqlite_checkpointer(settings)
    llm = await asyncio.to_thread(create_backend, settings)  # loading a GGUF blocks for seconds
    return await asyncio.to_thread(
        Agent.create,
        settings,
        llm,
        build_registry(),
        checkpointer=checkpointer,
        patient_summary=patient_summary,
        http=create_client(settings),
        fhir=ehr,
    )

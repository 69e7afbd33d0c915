"""The triage service as the app runs it: the knowledge base, the offline literature fallback
and a model shared with the clinician agent (one model in memory, not two)."""

from __future__ import annotations

import asyncio

from docgemma.config import Settings
from docgemma.kb import prepare_knowledge_base
from docgemma.kb.assisted import AssistedSearch
from docgemma.kb.store import get_knowledge_base
from docgemma.llm.base import LLMBackend
from docgemma.triage.knowledge import offline_literature
from docgemma.triage.service import TriageService


async def build_triage(settings: Settings, llm: LLMBackend) -> TriageService:
    await asyncio.to_thread(prepare_knowledge_base, settings)  # builds the index on first start
    return TriageService.create(
        settings,
        llm,
        AssistedSearch(get_knowledge_base(settings), flow=settings.kb_retrieval),
        literature=offline_literature(settings),
    )

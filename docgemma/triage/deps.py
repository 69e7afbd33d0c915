"""The run-time context of the triage graph: what nodes use but the checkpoint must not hold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from docgemma.config import Settings
from docgemma.kb import Role
from docgemma.llm.base import LLMBackend
from docgemma.llm.thinking import ThinkingConfig
from docgemma.triage.knowledge import KnowledgeSearch, LiteratureSearch


@dataclass
class TriageDeps:
    settings: Settings
    llm: LLMBackend
    kb: KnowledgeSearch
    literature: LiteratureSearch | None = None
    thinking: ThinkingConfig | None = None
    """Budget-forced reasoning before the prediction; None: predict directly."""
    role: Role | None = Role.PATIENT
    """Scopes the categories searched."""
    k: int = 5
    page_chars: int = 600
    """Characters of each page shown to the model (small models have small contexts)."""
    context: Literal["compact", "full"] = "compact"
    """``Settings.triage_context``: what the reasoning step reads and the reply is written
    from (``docgemma.triage.nodes.generate``)."""

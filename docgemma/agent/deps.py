"""What the nodes use but the checkpointed state must not hold: the run-time context.

Passed to the graph as LangGraph's ``context`` on every run (and resume), so models,
clients and the attached image never end up serialised in the checkpoint.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from docgemma.agent.knowledge import KnowledgeSource
from docgemma.config import Settings
from docgemma.llm.base import LLMBackend
from docgemma.llm.thinking import ThinkingConfig
from docgemma.llm.types import ImageInput
from docgemma.routing import Classifier
from docgemma.tools.base import ToolContext, ToolRegistry

PatientSummaryFn = Callable[[str], Awaitable[str | None]]
"""Returns a short clinical summary of a patient, or None when the ID is unknown; raises
when the record cannot be reached."""


@dataclass
class AgentDeps:
    settings: Settings
    llm: LLMBackend
    registry: ToolRegistry
    classifiers: dict[str, Classifier] = field(default_factory=dict)
    patient_summary: PatientSummaryFn | None = None
    http: Any = None
    fhir: Any = None
    thread_id: str = ""
    image: ImageInput | None = None
    thinking: ThinkingConfig | None = None
    """This turn's thinking before the answer; None: answer directly."""
    knowledge: KnowledgeSource | None = None
    """Finds an offline passage for a direct question (models that may not answer from
    memory); None: nothing is looked up for it."""
    show_unverified: bool = False
    """This turn only: when no source answers, add the model's own answer under the
    unverified label (the clinician asked for it)."""
    persona: str = ""
    """An expert profile's system prompt for the answer; empty: the default assistant."""
    documents: Any = None
    """The tenant's own documents (``docgemma.kb.documents.TenantDocuments``) in an API
    session with retrieval on; the knowledge-base tool searches them too."""

    def answers_from_memory(self) -> bool:
        """Whether an answer may come from the model's memory, under the unverified label:
        the model may (``Settings.answers_from_memory``), or the request left it no source
        to consult (every tool and the knowledge base switched off), which asks for that."""
        return self.settings.answers_from_memory() or (not self.registry and not self.knowledge)

    def classifier(self, task: str) -> Classifier | None:
        """The embedding classifier for a task, when settings route that task to one."""
        if self.settings.classifier_for(task) != "embedding":  # type: ignore[arg-type]
            return None
        return self.classifiers.get(task)

    def tool_context(
        self,
        *,
        question: str | None = None,
        approved_by: str | None = None,
        idempotency_key: str | None = None,
        replaces: str | None = None,
    ) -> ToolContext:
        return ToolContext(
            settings=self.settings,
            http=self.http,
            fhir=self.fhir,
            llm=self.llm,
            image=self.image,
            session_id=self.thread_id,
            question=question,
            approved_by=approved_by,
            idempotency_key=idempotency_key,
            replaces=replaces,
            documents=self.documents,
        )

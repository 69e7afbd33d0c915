"""The API in this test's own process: the real app, store and routes over ASGI, the clinician
agent and the triage graph on scripted models, and a real Chroma store for the tenants'
documents (in the test's temporary data folder).

The clinician's scripted model searches the knowledge base when the question mentions
"protocol" or "pages" and answers directly otherwise, as a served model allowed to answer
from memory; its direct answers carry a reasoning span (for the thinking channel) and echo
the question, and its answers from sources cite the first source's opening words. Triage
runs over the small in-memory knowledge base of the triage tests.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel
from triage.fakes import FakeKB, fake_literature, triage_backend

from docgemma.agent.service import Agent
from docgemma.api import create_api
from docgemma.api.auth import hash_key
from docgemma.api.client import DocGemmaClient
from docgemma.api.runtime import AgentMode, Runtime, document_library
from docgemma.api.triage_mode import TriageMode
from docgemma.config import Settings
from docgemma.experts import Mode
from docgemma.kb.corpus import DEMO_PAGES_DIR
from docgemma.llm.scripted import ScriptedBackend
from docgemma.llm.types import Message
from docgemma.tools.registry import build_registry
from docgemma.triage.service import TriageService

from .scripted_app import answer_reply, query_of

KEYS = {"clinic-a": "key-a-" + "x" * 20, "clinic-b": "key-b-" + "y" * 20}
SEARCH_WORDS = ("protocol", "pages")
CORPUS_PAGES = ("flu.md", "pneumonia.md")


def clinician_respond(messages: Sequence[Message], schema: type[BaseModel] | None) -> Any:
    query = query_of(messages)
    name = schema.__name__ if schema else "text"
    if name == "IntentClassification":
        search = any(w in query.lower() for w in SEARCH_WORDS)
        return {"intent": "TOOL_NEEDED" if search else "DIRECT", "task_summary": query[:200]}
    if name == "ToolSelection":
        return {"tool_name": "search_knowledge_base"}
    if name == "KnowledgeBaseArgs":
        return {"query": query[:100]}
    return answer_reply(schema, query)


def api_settings(base: Settings, **overrides: Any) -> Settings:
    """``base`` (the suite's isolated settings) for an in-process API: scripted backend,
    offline, a two-page condition corpus, the two tenants' keys."""
    corpus = base.data_dir.parent / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for name in CORPUS_PAGES:
        (corpus / name).write_text((DEMO_PAGES_DIR / name).read_text(encoding="utf-8"))
    return base.model_copy(
        update={
            "backend": "scripted",
            "offline": True,
            "served_answers_from_memory": True,
            "kb_corpus_dir": corpus,
            "api_keys": {hash_key(key): tenant for tenant, key in KEYS.items()},
            **overrides,
        }
    )


@asynccontextmanager
async def in_process_api(settings: Settings) -> AsyncIterator[Any]:
    """The app with its lifespan entered; ``client(tenant)`` talks to it over ASGI."""
    agent = Agent.create(
        settings, ScriptedBackend(responder=clinician_respond), build_registry(), classifiers={}
    )
    triage = TriageService.create(settings, triage_backend(), FakeKB(), literature=fake_literature)
    documents = document_library(settings)

    async def get_agent() -> Agent:
        return agent

    async def get_triage() -> TriageService:
        return triage

    @asynccontextmanager
    async def runtime(_: Settings) -> AsyncIterator[Runtime]:
        yield Runtime(
            modes={
                Mode.CLINICIAN: AgentMode(get_agent, documents),
                Mode.TRIAGE: TriageMode(get_triage),
            },
            fhir_reachable=_reachable,
            documents=documents,
        )

    app = create_api(settings, runtime)
    async with app.router.lifespan_context(app):
        yield app


async def _reachable() -> bool:
    return True


def client(app: Any, tenant: str = "clinic-a") -> DocGemmaClient:
    return DocGemmaClient("http://api.test", KEYS[tenant], transport=httpx.ASGITransport(app=app))


def raw(app: Any, tenant: str | None = "clinic-a") -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {KEYS[tenant]}"} if tenant else {}
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://api.test", headers=headers
    )


def profiles_file(folder: Path, profiles: list[dict[str, Any]]) -> Path:
    """A profiles file (YAML is a superset of JSON)."""
    path = folder / "profiles.yaml"
    path.write_text(json.dumps({"profiles": profiles}), encoding="utf-8")
    return path

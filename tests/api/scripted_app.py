"""The API server the acceptance tests start with uvicorn: the real stack (tools, EHR over
HTTP, checkpointer, store) on a scripted model.

``uvicorn --factory scripted_app:create --app-dir tests/api``; configured by ``DOCGEMMA_*``
variables like the real server. The model's replies follow the clinician's message:
an ``abc-123`` chart question uses the record tool, ``prescribe`` proposes an order,
anything else is answered directly; the server runs it as a served model that may answer
from memory, so a direct answer carries the unverified label (``direct``). Triage turns
(``mode=triage``) search the real knowledge base, the model choosing the first value each
schema allows. Clinician answers carry a reasoning span (for the thinking channel) and
echo the question (so tests can tell sessions apart); a message with ``slowly`` is
answered at one word every 0.3 s.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence
from functools import partial
from typing import Any, get_args, get_origin

from fastapi import FastAPI
from pydantic import BaseModel

from docgemma.agent.answer.compose import UNVERIFIED_NOTE
from docgemma.api import create_api
from docgemma.api.runtime import agent_runtime
from docgemma.config import get_settings
from docgemma.llm.scripted import ScriptedBackend
from docgemma.llm.types import Message

PATIENT = "abc-123"
ORDER = {
    "patient_id": PATIENT,
    "medication_name": "metformin",
    "dosage": "500 mg",
    "frequency": "twice daily",
}
_QUERY = re.compile(r"(?:User query|Clinician's question): (.*)")


def direct(question: str) -> str:
    """The scripted model's direct answer to ``question`` as the clinician reads it."""
    return f"Direct answer: {question}\n\n{UNVERIFIED_NOTE}"


def query_of(messages: Sequence[Message]) -> str:
    found = _QUERY.findall("\n".join(m.content for m in messages))
    return found[-1].strip() if found else ""


TRIAGE_CHOICES = {"KBCategory", "KBSubcategory", "KBSelection", "TriagePrediction"}
TRIAGE_REPLY = "That sounds like a common cold. Rest and drink fluids. How long has it lasted?"


def first_choices(schema: type[BaseModel]) -> dict[str, Any]:
    """Each field's first allowed value (a list field gets a list of one)."""
    values: dict[str, Any] = {}
    for name, field in schema.model_fields.items():
        if get_origin(field.annotation) is list:
            values[name] = [get_args(get_args(field.annotation)[0])[0]]
        else:
            values[name] = get_args(field.annotation)[0]
    return values


def respond(messages: Sequence[Message], schema: type[BaseModel] | None) -> Any:
    query = query_of(messages)
    if schema is not None and schema.__name__ == "RouteDecision":
        return {"action": "retrieve", "search_query": "runny nose and sneezing"}
    if schema is not None and schema.__name__ in TRIAGE_CHOICES:
        return first_choices(schema)
    if schema is None and not query:  # triage: the reasoning step, or the patient's reply
        return TRIAGE_REPLY if "talking" in messages[0].content else "a cold fits the symptoms"
    wants_order = "prescribe" in query.lower()
    name = schema.__name__ if schema else "text"
    if name == "IntentClassification":
        tool = wants_order or PATIENT in query
        return {"intent": "TOOL_NEEDED" if tool else "DIRECT", "task_summary": query[:200]}
    if name == "ToolSelection":
        return {"tool_name": "prescribe_medication" if wants_order else "get_patient_chart"}
    if name == "PrescribeMedicationArgs":
        return ORDER
    if name == "PatientChartArgs":
        return {"patient_id": PATIENT}
    return answer_reply(schema, query)


def answer_reply(schema: type[BaseModel] | None, query: str) -> Any:
    """What both scripted clinician models say once a lookup is chosen: the result is good,
    the cited answer quotes source 1, a direct answer echoes the question."""
    name = schema.__name__ if schema else "text"
    if name == "ResultAssessment":
        return {"quality": "success_rich", "brief_summary": "found"}
    if schema is not None and name == "CitedAnswer":
        return cite_first_source(schema)
    if name != "text":
        raise AssertionError(f"unexpected schema {name}")
    return f"<think>considering {query}</think>Direct answer: {query}"


def cite_first_source(schema: type[BaseModel]) -> dict[str, Any]:
    """One statement: the first sentence the answer may quote (source 1's first), restated."""
    statement = get_args(schema.model_fields["statements"].annotation)[0]
    first = get_args(statement.model_fields["quote"].annotation)[0]
    return {"statements": [{"quote": first, "text": first}]}


class ScriptedModel(ScriptedBackend):
    async def generate(self, messages: Sequence[Message], **kwargs: Any) -> Any:
        made = await super().generate(messages, **kwargs)
        if "slowly" in query_of(messages):  # as long as streaming it word by word would take
            await asyncio.sleep(0.3 * len(made.text.split()))
        return made

    async def stream(self, messages: Sequence[Message], **kwargs: Any) -> AsyncIterator[str]:
        slow = "slowly" in query_of(messages)
        async for piece in super().stream(messages, **kwargs):
            if slow:
                await asyncio.sleep(0.3)
            yield piece


def create() -> FastAPI:
    settings = get_settings()
    return create_api(settings, partial(agent_runtime, llm=ScriptedModel(responder=respond)))

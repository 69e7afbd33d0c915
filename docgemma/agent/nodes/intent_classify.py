"""Node ② INTENT_CLASSIFY: DIRECT or TOOL_NEEDED, plus a task summary.

Binary on purpose: the model handles two classes well and the task summary stands in
for a separate reasoning step. With an embedding classifier confident enough, the
model call disappears and the summary is the clinician's own words. Code has the last
word on two things: a question about a patient's record is never answered from memory,
and on a model that may not answer from memory, neither is a question naming a drug
(the drug's label answers it); an order to write to the record ("Prescribe …") is never
answered as a question.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from docgemma.agent import llm_calls
from docgemma.agent.answer.record import only_names_record_items
from docgemma.agent.context import classifier_text, history_text, image_text
from docgemma.agent.deps import AgentDeps
from docgemma.agent.orders import ordered_write
from docgemma.agent.prompts import INTENT_SYSTEM, INTENT_USER
from docgemma.agent.references import (
    Context,
    asks_what_record_holds,
    needs_record,
    only_names_a_patient,
    patient_to_find,
)
from docgemma.agent.rules import required_in_order
from docgemma.agent.schemas import TASK_SUMMARY_CHARS, IntentClassification
from docgemma.agent.state import AgentState
from docgemma.agent.tracing import decision, traced
from docgemma.labels import INTENT_WORDS, INTENTS
from docgemma.llm.repair import ModelFailure
from docgemma.llm.types import Message
from docgemma.tools.text import shorten


def intent_messages(state: AgentState) -> list[Message]:
    user = INTENT_USER.render(
        history=history_text(state.get("conversation_history", [])),
        image=image_text(state),
        user_query=state["user_query"],
    )
    return [
        Message(role="system", content=INTENT_SYSTEM.render()),
        Message(role="user", content=user),
    ]


def _from_classifier(state: AgentState, deps: AgentDeps) -> IntentClassification | None:
    classifier = deps.classifier("intent")
    if classifier is None:
        return None
    text = classifier_text(state)
    prediction = classifier.predict(text)
    label = prediction.label.upper()
    if label not in INTENTS or prediction.confidence < deps.settings.classifier_threshold:
        return None
    suggested = None
    tool_classifier = deps.classifier("tool")
    if label == "TOOL_NEEDED" and tool_classifier is not None:
        guess = tool_classifier.predict(text).label
        suggested = guess if guess in deps.registry else None
    return IntentClassification(
        intent=label,
        task_summary=shorten(state["user_query"], TASK_SUMMARY_CHARS),
        suggested_tool=suggested,
    )


def _orders_write(state: AgentState, deps: AgentDeps) -> bool:
    drugs = (state.get("extracted_entities") or {}).get("drug_mentions")
    return ordered_write(state["user_query"], deps.registry, drug_named=bool(drugs)) is not None


def _answered_by_loaded_record(state: AgentState, deps: AgentDeps, drugs: object) -> bool:
    """A question only about what the active patient's loaded record holds ("What is she
    allergic to?", or a bare "k+?"), naming no drug and asking for no tool by its words,
    needs no tool: after a few turns on other tools a small model sent "What is she
    allergic to?" to the condition pages."""
    query = state["user_query"]
    summary = state.get("patient_summary")
    if not summary or drugs:
        return False
    if not (asks_what_record_holds(query) or only_names_record_items(query, summary)):
        return False
    asked = required_in_order(query, patient_known=True, registry=deps.registry)
    return not asked and not _orders_write(state, deps)


@traced("intent_classify")
async def intent_classify(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    if not len(deps.registry):  # the profile or the request allows no tool: nothing to choose
        return {
            "intent": "DIRECT",
            "task_summary": shorten(state["user_query"], TASK_SUMMARY_CHARS),
            "suggested_tool": None,
            "trace": [
                decision(
                    "intent_classify",
                    "DIRECT",
                    "no tool is enabled for this session",
                    title="Understood the request",
                    detail=f"{INTENT_WORDS['DIRECT']}: no tool is enabled",
                )
            ],
        }
    if again := state.get("reproposal"):
        return {
            "intent": "TOOL_NEEDED",
            "task_summary": shorten(state["user_query"], TASK_SUMMARY_CHARS),
            "suggested_tool": again["tool"],
            "trace": [
                decision(
                    "intent_classify",
                    "TOOL_NEEDED",
                    again["why"],
                    title="Understood the request",
                    detail=f"{INTENT_WORDS['TOOL_NEEDED']}: a new card for the latest write",
                )
            ],
        }
    calls: list[str] = []
    result = _from_classifier(state, deps)
    source = "embedding classifier"
    if result is None:
        source = "model"
        try:
            result, calls = await llm_calls.structured(
                deps, "intent_classify", "intent", intent_messages(state), IntentClassification
            )
        except ModelFailure as exc:
            return {
                "fallback": True,
                "llm_calls": exc.calls,
                "trace": [
                    decision(
                        "intent_classify",
                        "fallback",
                        str(exc),
                        title="Understanding the request",
                        detail="the model is unavailable",
                        status="error",
                    )
                ],
            }
    reason = f"classified by the {source}"
    context = Context(patient_selected=bool(state.get("active_patient_id")))
    drugs = (state.get("extracted_entities") or {}).get("drug_mentions")
    overruled = ""
    if result.intent == "DIRECT" and needs_record(state["user_query"], context):
        overruled = "only the patient's record can answer this"
    elif result.intent == "DIRECT" and drugs and not deps.answers_from_memory():
        overruled = "a question about a drug is answered from its label, not from memory"
    if overruled:
        reason += f" as DIRECT; overruled: {overruled}"
        result = result.model_copy(update={"intent": "TOOL_NEEDED"})
    elif result.intent == "DIRECT" and _orders_write(state, deps):
        reason += " as DIRECT; overruled: the message orders a record write"
        result = result.model_copy(update={"intent": "TOOL_NEEDED"})
    elif result.intent == "DIRECT" and only_names_a_patient(state["user_query"]):
        overruled = "the message calls up a patient: their record is shown"
        reason += f" as DIRECT; overruled: {overruled}"
        result = result.model_copy(update={"intent": "TOOL_NEEDED"})
    elif result.intent == "DIRECT" and patient_to_find(state["user_query"]):
        overruled = "the message asks to find a patient by name"
        reason += f" as DIRECT; overruled: {overruled}"
        result = result.model_copy(update={"intent": "TOOL_NEEDED"})
    elif result.intent == "TOOL_NEEDED" and _answered_by_loaded_record(state, deps, drugs):
        overruled = "the loaded record of the active patient answers it"
        reason += f" as TOOL_NEEDED; overruled: {overruled}"
        result = result.model_copy(update={"intent": "DIRECT", "suggested_tool": None})
    suggested = result.suggested_tool if result.suggested_tool in deps.registry else None
    return {
        "intent": result.intent,
        "task_summary": result.task_summary,
        "suggested_tool": suggested,
        "llm_calls": calls,
        "trace": [
            decision(
                "intent_classify",
                result.intent,
                reason,
                title="Understood the request",
                detail=f"{INTENT_WORDS[result.intent]}: {result.task_summary}"
                + (f" ({overruled})" if overruled else ""),
            )
        ],
    }

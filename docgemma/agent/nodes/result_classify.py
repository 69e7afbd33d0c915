"""Node ⑤ RESULT_CLASSIFY: what happened, never what to do next.

The model's strongest operational skill (94%). It sees the question, the task summary
and the formatted result under its clinical label. Code keeps the class consistent
with facts it already knows: a call that reported an error cannot be a success, and
one that reported none cannot be an error.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from docgemma.agent import llm_calls
from docgemma.agent.context import clinical_context, image_text
from docgemma.agent.deps import AgentDeps
from docgemma.agent.prompts import RESULT_SYSTEM, RESULT_USER
from docgemma.agent.rules import ERROR_QUALITIES
from docgemma.agent.schemas import BRIEF_SUMMARY_CHARS, ResultAssessment
from docgemma.agent.state import RESET_MARKER, AgentState, ToolResult
from docgemma.agent.tracing import decision, record, traced
from docgemma.events import ResultClassified
from docgemma.labels import NODE_LABELS, RESULT_QUALITIES, ResultQuality
from docgemma.llm.repair import ModelFailure
from docgemma.llm.types import Message
from docgemma.routing.base import result_text
from docgemma.tools.outcomes import RETRYABLE_ERRORS
from docgemma.tools.text import shorten, whole_words

_NODE = "result_classify"


def result_messages(state: AgentState, result: ToolResult) -> list[Message]:
    user = RESULT_USER.render(
        user_query=state["user_query"],
        clinical_context=clinical_context(state),
        image=image_text(state),
        tool_label=result["tool_label"],
        formatted_result=result["formatted_result"],
    )
    return [
        Message(role="system", content=RESULT_SYSTEM.render()),
        Message(role="user", content=user),
    ]


def consistent_quality(quality: ResultQuality, result: ToolResult) -> ResultQuality:
    """The class, corrected where it contradicts what the tool itself reported."""
    error = result["error_type"]
    if error and quality not in ERROR_QUALITIES:
        retryable = error in RETRYABLE_ERRORS
        return ResultQuality.ERROR_RETRYABLE if retryable else ResultQuality.ERROR_FATAL
    if not error and quality in ERROR_QUALITIES:
        return ResultQuality.SUCCESS_PARTIAL if result["result"] else ResultQuality.NO_RESULTS
    return quality


def _from_classifier(query: str, result: ToolResult, deps: AgentDeps) -> ResultAssessment | None:
    classifier = deps.classifier("result")
    if classifier is None:
        return None
    prediction = classifier.predict(result_text(query, result["formatted_result"]))
    if (
        prediction.label not in RESULT_QUALITIES
        or prediction.confidence < deps.settings.classifier_threshold
    ):
        return None
    return ResultAssessment(
        quality=prediction.label,
        brief_summary=shorten(result["formatted_result"], BRIEF_SUMMARY_CHARS),
    )


@traced(_NODE)
async def result_classify(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    results = list(state.get("tool_results", []))
    last = dict(results[-1])
    calls: list[str] = []
    assessment = _from_classifier(state["user_query"], last, deps)
    source = "embedding classifier"
    if assessment is None:
        source = "model"
        try:
            assessment, calls = await llm_calls.structured(
                deps, _NODE, "result_classify", result_messages(state, last), ResultAssessment
            )
        except ModelFailure as exc:
            return {
                "fallback": True,
                "llm_calls": exc.calls,
                "trace": [decision(_NODE, "fallback", str(exc))],
            }
    quality = consistent_quality(assessment.quality, last)
    reason = f"classified by the {source}"
    if quality != assessment.quality:
        reason += f" as {assessment.quality}; corrected because the tool reported " + (
            f"an error ({last['error_type']})" if last["error_type"] else "no error"
        )
    last["quality"] = quality
    classified = record(
        ResultClassified(
            node=_NODE,
            label=NODE_LABELS[_NODE],
            quality=quality,
            summary=whole_words(assessment.brief_summary, BRIEF_SUMMARY_CHARS),
        )
    )
    return {
        # replace the last record with its classified copy (RESET then the full list)
        "tool_results": [RESET_MARKER, *results[:-1], last],
        "last_result_classification": quality,
        "last_result_summary": assessment.brief_summary,
        "llm_calls": calls,
        "trace": [classified, decision(_NODE, quality, reason)],
    }

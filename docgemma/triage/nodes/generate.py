"""Node ⑤ GENERATE: clinical reasoning over the pages, then a constrained prediction.

With thinking on, the model reasons under budget forcing (``docgemma.llm.thinking``)
and every piece streams to the reasoning panel. A second, constrained call turns the
analysis into ``(condition, severity)``: condition one of the retrieved page ids or
"inconclusive". Code then applies the red-flag rules: a fired rule's severity wins
whenever it is more urgent than the model's.

What the reasoning reads depends on ``TriageDeps.context``: ``compact`` gives it the
latest message and the pages in retrieval order; ``full`` gives it the conversation so
far and the pages most serious first, each with its similarity, so that a follow-up
("it is worse now") is read with what came before and a dangerous condition is weighed
before a likelier mild one. The analysis is kept for the reply (``router_respond``).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from docgemma.llm.repair import ModelFailure
from docgemma.severity import Severity
from docgemma.triage import llm_calls, red_flags, stream
from docgemma.triage.demographics import Demographics
from docgemma.triage.deps import TriageDeps
from docgemma.triage.prompts import (
    PREDICT_SYSTEM,
    PREDICT_USER,
    REASON_SYSTEM,
    REASON_SYSTEM_FULL,
    REASON_USER,
    REASON_USER_FULL,
)
from docgemma.triage.schemas import INCONCLUSIVE, as_prediction, prediction_schema
from docgemma.triage.state import SourceRecord, TriageState, fired_rules


def pages_text(sources: list[SourceRecord], chars: int, *, scored: bool = False) -> str:
    """The pages for a prompt; ``scored`` adds each page's similarity to the symptoms."""
    if not sources:
        return "(no pages found)"
    blocks = []
    for s in sources:
        advice = f" — page advice: {s['severity']}" if s["severity"] else " — research abstract"
        score = f" — similarity {s['score']:.2f}" if scored else ""
        blocks.append(f"[{s['id']}] {s['title']}{score}{advice}\n{s['content'][:chars]}")
    return "\n\n".join(blocks)


def most_serious_first(sources: list[SourceRecord]) -> list[SourceRecord]:
    """Pages by their usual urgency (A&E first), then by similarity; abstracts last."""

    def urgency(source: SourceRecord) -> int:
        return Severity(source["severity"]).rank if source["severity"] else -1

    return sorted(sources, key=lambda s: (-urgency(s), -s["score"]))


def reasoning_prompt(state: TriageState, deps: TriageDeps, demographics: str) -> tuple[str, str]:
    """The reasoning step's system and user text for ``deps.context``."""
    sources = list(state.get("sources") or [])
    if deps.context == "full":
        pages = pages_text(most_serious_first(sources), deps.page_chars, scored=True)
        user = REASON_USER_FULL.format(
            history=llm_calls.history_text(state.get("messages") or []),
            demographics=demographics,
            symptoms=state["message"],
            pages=pages,
        )
        return REASON_SYSTEM_FULL, user
    pages = pages_text(sources, deps.page_chars)
    return REASON_SYSTEM, REASON_USER.format(
        demographics=demographics, symptoms=state["message"], pages=pages
    )


async def _think(deps: TriageDeps, system: str, user: str) -> str:
    """Budget-forced reasoning streamed to the panel; returns thinking plus its conclusion."""
    assert deps.thinking is not None
    thought: list[str] = []
    async for chunk in llm_calls.thinking_stream(
        deps.llm, llm_calls.as_messages(system, user), deps.thinking
    ):
        if chunk.text:
            thought.append(chunk.text)
            stream.thinking("generate", chunk.text)
    stream.thinking("generate", "\n")
    return "".join(thought).strip()


async def generate(state: TriageState, runtime: Runtime[TriageDeps]) -> dict[str, Any]:
    deps = runtime.context
    stream.step("generate", "Comparing your symptoms with the condition pages")
    demographics = Demographics.model_validate(state.get("demographics") or {}).describe()
    sources = list(state.get("sources") or [])
    pages = pages_text(sources, deps.page_chars)
    calls = list(state.get("llm_calls", []))
    reasoning = state.get("reasoning", "")
    analysis = ""
    try:
        if deps.thinking is not None:
            calls.append("reason")
            system, user = reasoning_prompt(state, deps, demographics)
            analysis = await _think(deps, system, user)
            reasoning += analysis + "\n"
        ids = tuple(s["id"] for s in sources if s["kind"] == "knowledge_base")
        calls.append("predict")
        value = await llm_calls.structured(
            deps.llm,
            llm_calls.as_messages(
                PREDICT_SYSTEM,
                PREDICT_USER.format(
                    demographics=demographics,
                    symptoms=state["message"],
                    page_list=pages if not analysis else ", ".join(ids) or INCONCLUSIVE,
                    analysis=analysis or "(no separate analysis; decide from the pages)",
                ),
            ),
            prediction_schema(ids),
            purpose="predict",
        )
    except ModelFailure:
        return {"route": "fallback", "fallback": True, "llm_calls": calls, "reasoning": reasoning}
    prediction = as_prediction(value)
    reasoning += stream.reason(
        "generate", f"Prediction: ({prediction.condition}, {prediction.severity.value})."
    )
    fired = fired_rules(state)
    final = red_flags.enforce(prediction.severity, fired)
    if final is not prediction.severity:
        reasoning += stream.reason(
            "generate",
            f"Red-flag rules override the model: {prediction.severity.value} → {final.value}.",
        )
    return {
        "condition": prediction.condition,
        "predicted_severity": prediction.severity.value,
        "severity": final.value,
        "reasoning": reasoning,
        "analysis": analysis,
        "llm_calls": calls,
        "route": "respond",
    }

"""Node ⑦ SYNTHESIZE: the clinician-facing answer, with its confidence and sources.

Free text at T=0.5 and at most 256 tokens, from the task summary, labelled results,
image findings and pre-formatted error messages — never raw errors, and no thinking
prefix unless the turn asks for thinking. The answer streams out filtered as it is
written; the cleaned ``final_response`` is authoritative (consumers replace the
streamed text with it). A clarification question or the model being unavailable is
answered by code, without a model call. Failures and rejections are always stated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from docgemma.agent import llm_calls
from docgemma.agent.answer import (
    NOT_RETRIEVED_ANSWER,
    error_notes,
    fallback_answer,
    follow_up_questions,
    key_facts,
    knowledge_note,
    left_out_detail,
    left_out_note,
    unchecked_notes,
    with_notes,
)
from docgemma.agent.answer_check import Findings, claims_missing_source
from docgemma.agent.checked_answer import Judge, write_checked
from docgemma.agent.citations import drop_unknown_citations, number_sources
from docgemma.agent.context import KEPT_MESSAGES, clinical_context, history_text, image_text
from docgemma.agent.coverage import unmentioned, with_unmentioned
from docgemma.agent.deps import AgentDeps
from docgemma.agent.entities import drug_dictionary
from docgemma.agent.events import AnswerToken
from docgemma.agent.knowledge import Grounding
from docgemma.agent.prompts import (
    SYNTHESIZE_BRIEF_PREFIX,
    SYNTHESIZE_FROM_MEMORY_SYSTEM,
    SYNTHESIZE_SYSTEM,
    SYNTHESIZE_USER,
)
from docgemma.agent.references import about_record, only_to_see_record
from docgemma.agent.rules import answered_tools, confidence_level
from docgemma.agent.state import AgentState, ToolResult
from docgemma.agent.support import states_nothing
from docgemma.agent.tracing import NODE_LABELS, decision, emit, traced
from docgemma.llm.types import Message
from docgemma.tools.base import ToolRegistry
from docgemma.tools.facts import ToolRole

_NODE = "synthesize"


def nothing_retrieved(state: AgentState, results: list[ToolResult]) -> bool:
    """Sources were consulted and none answered (every lookup failed), and no attached
    image gives the model material to answer from.

    An active patient's summary does not count: asked for a drug's FDA warnings with a
    patient in context and openFDA unreachable, a model writes "No FDA warnings for
    dofetilide available", which reads as "there are none"."""
    executed = [r for r in results if r["executed"]]
    return (
        bool(executed)
        and all(r["error_type"] is not None for r in executed)
        and not state.get("image_findings")
    )


def saved_writes(results: list[ToolResult], registry: ToolRegistry) -> list[str]:
    """The confirmations of a turn whose only successful results are approved record writes.

    A write's confirmation names the values actually saved. Asked to restate it, a model may
    write the dose from the question (500 mg) although the clinician edited it to
    850 mg before approving, so a write is confirmed in the tool's own words.
    """
    ok = [r for r in results if r["executed"] and r["error_type"] is None]
    if ok and all(registry[r["tool_name"]].writes_ehr for r in ok):
        return [r["formatted_result"] for r in ok]
    return []


def shown_records(results: list[ToolResult], registry: ToolRegistry, query: str) -> list[str]:
    """The charts read, when the clinician only asked to see one and finding the patient and
    reading the chart is all the turn did: the record is shown as it is. A model may
    answer "Show me the chart of abc-123" with "Here is the chart of abc-123 [1]." and no chart.
    A turn that only found a patient shows who was found (id, birth date, what next)."""
    ok = [r for r in results if r["error_type"] is None]
    roles = [registry[r["tool_name"]].role for r in ok]
    if ok and len(ok) == len(results) and set(roles) == {ToolRole.FINDS_PATIENT}:
        return [r["formatted_result"] for r in ok]
    if not only_to_see_record(query) or ToolRole.READS_CHART not in roles:
        return []
    if any(role not in (ToolRole.READS_CHART, ToolRole.FINDS_PATIENT) for role in roles):
        return []
    return [
        r["formatted_result"]
        for r, role in zip(ok, roles, strict=True)
        if role is ToolRole.READS_CHART
    ]


def is_brief(results: list[ToolResult], registry: ToolRegistry) -> bool:
    """The brief variant: a single lookup's answer keeps only the critical findings."""
    ok = [r for r in results if r["error_type"] is None]
    return len(ok) == 1 and registry[ok[0]["tool_name"]].brief_answer


PATIENT_HEADER = "Active patient:"
RESULTS_HEADER = "Information retrieved:"
UNAVAILABLE_HEADER = "Unavailable information:"
REFERENCE_HEADER = "Reference passage (offline source; base the answer on it):"
PROMPT_MARKERS = (
    PATIENT_HEADER,
    RESULTS_HEADER,
    UNAVAILABLE_HEADER,
    REFERENCE_HEADER,
    "Clinician's question:",
    "Clinical context:",
    "Guidelines:",
)
"""The prompt's own labels: an answer that contains one is echoing its prompt."""


def synthesis_messages(
    state: AgentState,
    registry: ToolRegistry,
    notes: list[str],
    grounding: Grounding | None = None,
    persona: str = "",
    *,
    sourced: bool = True,
) -> list[Message]:
    """``persona``: an expert profile's system prompt, placed before the guidelines;
    ``sourced``: whether the model answers from something in front of it (results, a
    reference passage, the record) or from memory, which has its own guidelines."""
    return [
        Message(role="system", content=system_prompt(persona, sourced=sourced)),
        Message(role="user", content=synthesis_user(state, registry, notes, grounding)),
    ]


def synthesis_user(
    state: AgentState,
    registry: ToolRegistry,
    notes: list[str],
    grounding: Grounding | None = None,
    *,
    with_history: bool = True,
) -> str:
    """The user message of the synthesis prompt. Without the conversation it is what an
    answer is held to: an earlier answer, perhaps unverified, supports nothing."""
    results = list(state.get("tool_results", []))
    sections: list[str] = []
    if state.get("patient_summary"):
        sections.append(f"{PATIENT_HEADER}\n{state['patient_summary']}")
    if image := image_text(state):
        sections.append(image.rstrip("\n"))
    ok = number_sources(results, shorten=key_facts).texts
    if ok:
        sections.append(f"{RESULTS_HEADER}\n" + "\n\n".join(ok))
    if grounding is not None:
        sections.append(f"{REFERENCE_HEADER}\n{grounding.title}\n{key_facts(grounding.text)}")
    if notes:
        sections.append(f"{UNAVAILABLE_HEADER}\n" + "\n".join(f"- {n}" for n in notes))
    # With a tool's results and earlier turns in front of it, a small model answers the earlier
    # questions again (from their answers, or anew when shown only the questions). A turn
    # that consulted a source answers from it; its references were resolved before.
    history = with_history and not results
    return SYNTHESIZE_USER.render(
        brief_prefix=SYNTHESIZE_BRIEF_PREFIX if is_brief(results, registry) else "",
        history=history_text(state.get("conversation_history", [])) if history else "",
        user_query=state["user_query"],
        clinical_context=clinical_context(state),
        sections="\n" + "\n\n".join(sections) if sections else "",
    )


def system_prompt(persona: str = "", *, sourced: bool = True) -> str:
    guidelines = (SYNTHESIZE_SYSTEM if sourced else SYNTHESIZE_FROM_MEMORY_SYSTEM).render()
    return "\n\n".join(p for p in (persona.strip(), guidelines) if p)


def missing_claims(results: Sequence[ToolResult], registry: ToolRegistry) -> tuple[str, ...]:
    """The words of the sources that failed this turn (``ToolSpec.claimed_by``) that no
    source that answered presents findings in: the answer may use them only to say what
    is missing. ("FDA labels were not consulted" in an interaction result does not count.)"""
    answered = [r["formatted_result"] for r in results if r["error_type"] is None]
    failed = {r["tool_name"] for r in results if r["error_type"]} - answered_tools(results)
    return tuple(
        claim
        for tool in sorted(failed)
        if tool in registry
        for claim in registry[tool].claimed_by
        if not any(claims_missing_source(text, (claim,)) for text in answered)
    )


def unchecked_claims(
    results: Sequence[ToolResult], registry: ToolRegistry, patient_summary: str = ""
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """What the sources that answered did not check, each with its source's words
    (``ToolSpec.claimed_by``): the answer may join them only to say it was not checked.

    That is what a source could not check, and the active patient's other drugs: given a
    chart and an interaction check of three drugs, a model may report "a graded interaction
    between azithromycin and lisinopril", lisinopril coming from the chart.
    """
    others: list[str] = []
    if patient_summary:  # the dictionary scan is skipped on turns with no patient
        dictionary = drug_dictionary()
        checked = set(dictionary.find("\n".join(r["formatted_result"] for r in results)))
        others = [d for d in dictionary.find(patient_summary) if d not in checked]
    return tuple(
        (item, registry[r["tool_name"]].claimed_by)
        for r in results
        if r["error_type"] is None and r["tool_name"] in registry
        for item in dict.fromkeys([*r["unchecked"], *others])
        if registry[r["tool_name"]].claimed_by
    )


def source_findings(results: Sequence[ToolResult], registry: ToolRegistry) -> tuple[Findings, ...]:
    """What the sources that answered found, with the words that would deny it."""
    return tuple(
        Findings(
            tuple(map(tuple, r["found"])),
            registry[r["tool_name"]].denied_by,
            others=tuple(r["unchecked"]),
        )
        for r in results
        if r["error_type"] is None and r["found"] and r["tool_name"] in registry
    )


def _judge(
    state: AgentState,
    deps: AgentDeps,
    notes: list[str],
    grounding: Grounding | None,
    *,
    sourced: bool,
) -> Judge:
    return Judge(
        question=state["user_query"],
        instructions=system_prompt(deps.persona, sourced=sourced),
        markers=PROMPT_MARKERS,
        tool_names=tuple(deps.registry.labels()),
        context=synthesis_user(state, deps.registry, notes, grounding, with_history=False),
        missing_claims=missing_claims(state.get("tool_results", []), deps.registry),
        unchecked=unchecked_claims(
            state.get("tool_results", []), deps.registry, state.get("patient_summary") or ""
        ),
        findings=source_findings(state.get("tool_results", []), deps.registry),
        sourced=sourced,
    )


@traced(_NODE)
async def synthesize(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    results = list(state.get("tool_results", []))
    notes = error_notes(state)
    calls: list[str] = []
    left_out: tuple[str, ...] = ()
    composed = False
    sources = number_sources(results).sources
    fallback = bool(state.get("fallback"))
    clarification = state.get("clarification_request")
    by_code = not clarification and not fallback and nothing_retrieved(state, results)
    saved = [] if clarification or fallback or by_code else saved_writes(results, deps.registry)
    shown = (
        []
        if clarification or fallback or by_code
        else shown_records(results, deps.registry, state["user_query"])
    )
    if clarification:
        answer, how = clarification, "asked the clinician for clarification"
    elif fallback:
        answer, how = (
            fallback_answer(results, notes),
            "the model is unavailable; pre-written fallback",
        )
    elif by_code:
        # a model asked to write with no data fills the gap from memory (a fabricated
        # "FDA warning" for a drug whose label was not retrieved): code states what is missing
        answer, how = with_notes(NOT_RETRIEVED_ANSWER, notes), "no source answered; stated by code"
    elif saved:
        answer, how = with_notes("\n\n".join(saved), notes), "record write confirmed by code"
    elif shown:
        answer, how = with_notes("\n\n".join(shown), notes), "the record shown as it is, by code"
    else:
        record = bool(state.get("patient_summary")) and about_record(state["user_query"])
        knowledge_question = (
            deps.knowledge is not None
            and not results
            and state.get("intent") == "DIRECT"
            and not record  # answered from the active patient's record, not from memory
        )
        grounding = await deps.knowledge(state["user_query"]) if knowledge_question else None
        # an answer that cites what it was given states only what that supports; one written
        # from the model's memory carries the Unverified label instead
        sourced = any(r["error_type"] is None for r in results) or bool(grounding) or record
        messages = synthesis_messages(
            state, deps.registry, notes, grounding, deps.persona, sourced=sourced
        )
        judge = _judge(state, deps, notes, grounding, sourced=sourced)
        try:
            written = await write_checked(deps, _NODE, messages, judge, results, notes)
            calls, answer, how = written.calls, written.text, written.how
            left_out, composed = written.left_out, not written.by_model
            if left_out:
                how += f"; {left_out_detail(left_out, sourced=sourced)}"
            missing = (
                unmentioned(answer, state["user_query"], results, deps.registry)
                if written.by_model
                else []
            )
            if missing:
                answer = with_unmentioned(answer, missing)
                how += "; added below it the key facts of lookups it may not mention"
            if knowledge_question and written.by_model:
                if grounding is not None or not states_nothing(answer):  # not on a greeting
                    answer = knowledge_note(answer, grounding.title if grounding else None)
                if grounding is not None:
                    sources.append(grounding.source())
            elif record and not results:
                pid = state.get("active_patient_id")
                sources.append(
                    {"title": f"EHR summary of the active patient ({pid})", "kind": "ehr"}
                )
        except llm_calls.ModelFailure as exc:
            calls, fallback = exc.calls, True
            answer, how = (
                fallback_answer(results, notes),
                "the model is unavailable; pre-written fallback",
            )
        answer = drop_unknown_citations(answer, len(sources))
        extra = [left_out_note(len(left_out), sourced=sourced)] if left_out else []
        answer = with_notes(answer, [*notes, *unchecked_notes(answer, results), *extra])
    if clarification or fallback or by_code or saved or shown:  # by code: whole; final wins
        emit(AnswerToken(node=_NODE, label=NODE_LABELS[_NODE], text=answer))
    entities = state.get("extracted_entities") or {}
    conversation = [
        *(state.get("conversation") or []),
        {"role": "user", "content": state["user_query"]},
        {"role": "assistant", "content": answer},
    ][-KEPT_MESSAGES:]
    return {
        "final_response": answer,
        "fallback": fallback,
        "conversation": conversation,
        # a write confirmed in the record's own words, with nothing failed, is certain;
        # the result classifier calls a short confirmation "partial"
        "confidence_level": "high"
        if saved and not notes
        else confidence_level(
            results,
            intent=state.get("intent"),
            fallback=fallback,
            clarification=bool(clarification),
            left_out=bool(left_out),
            composed=composed,
        ),
        "sources_used": sources,
        "follow_up_questions": follow_up_questions(
            drugs=entities.get("drug_mentions", []),
            roles={deps.registry[r["tool_name"]].role for r in results},
            patient=bool(state.get("active_patient_id")),
        ),
        "llm_calls": calls,
        "left_out": list(left_out),
        "trace": [decision(_NODE, "answer", how, title="Wrote the answer")],
    }

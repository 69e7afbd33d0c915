"""Node ⑦ SYNTHESIZE: the clinician-facing answer, with its confidence and sources.

The answer rests on what the turn retrieved, or says that nothing answers the question.
The model writes cited statements (``answer.write``), and only statements whose quotes
code found in their sources are shown, as they pass. Code writes the answer whole when
the model has nothing to add: a question back, the model unavailable, nothing retrieved,
a record write confirmed, a chart only asked to be seen, the decline. An answer from the
model's memory is written only on a model profile that may answer from memory, or when
the clinician asks for it for this turn, and always under the unverified label.
Confidence is derived from the grounding (``answer.confidence``); raw errors never reach
the model or the clinician.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from langgraph.runtime import Runtime

from docgemma.agent import llm_calls
from docgemma.agent.answer import compose, hygiene
from docgemma.agent.answer.confidence import Grounding, derive
from docgemma.agent.answer.record import only_names_record_items, record_answer
from docgemma.agent.answer.sources import Passage, gather, prompt_text
from docgemma.agent.answer.statements import Checked, content_stems, normalise
from docgemma.agent.answer.write import Written, write_cited
from docgemma.agent.cant_miss_opening import open_with_cant_miss
from docgemma.agent.context import KEPT_MESSAGES, clinical_context, history_text, image_text
from docgemma.agent.deps import AgentDeps
from docgemma.agent.prompts import (
    SYNTHESIZE_BRIEF_PREFIX,
    SYNTHESIZE_FROM_MEMORY_SYSTEM,
    SYNTHESIZE_SOURCES_USER,
    SYNTHESIZE_SYSTEM,
    SYNTHESIZE_USER,
)
from docgemma.agent.references import (
    about_record,
    asks_about_a_case,
    asks_to_see_record,
    asks_what_record_holds,
    refers_to_patient,
)
from docgemma.agent.state import AgentState, ToolResult
from docgemma.agent.tracing import decision, traced
from docgemma.events import AnswerToken, emit
from docgemma.labels import NODE_LABELS
from docgemma.llm.repair import UNAVAILABLE, ModelFailure
from docgemma.llm.types import Message
from docgemma.red_flags.match import unnegated
from docgemma.tools.base import ToolRegistry
from docgemma.tools.facts import ToolRole
from docgemma.tools.knowledge_base import condition_of

_NODE = "synthesize"
_BRACKETED = re.compile(r"\(([^)]*)\)")


def is_brief(results: list[ToolResult], registry: ToolRegistry) -> bool:
    """The brief variant: a single lookup's answer keeps only the critical findings."""
    ok = [r for r in results if r["error_type"] is None]
    return len(ok) == 1 and registry[ok[0]["tool_name"]].brief_answer


def system_prompt(persona: str, guidelines: str) -> str:
    return "\n\n".join(p for p in (persona.strip(), guidelines) if p)


def cited_messages(
    state: AgentState, deps: AgentDeps, passages: list[Passage], results: list[ToolResult]
) -> list[Message]:
    user = SYNTHESIZE_SOURCES_USER.render(
        brief_prefix=SYNTHESIZE_BRIEF_PREFIX if is_brief(results, deps.registry) else "",
        user_query=state["user_query"],
        clinical_context=clinical_context(state),
        sources=prompt_text(passages),
    )
    return [
        Message(role="system", content=system_prompt(deps.persona, SYNTHESIZE_SYSTEM.render())),
        Message(role="user", content=user),
    ]


def memory_messages(state: AgentState, deps: AgentDeps) -> list[Message]:
    user = SYNTHESIZE_USER.render(
        brief_prefix="",
        history=history_text(state.get("conversation_history", [])),
        user_query=state["user_query"],
        clinical_context=clinical_context(state),
        sections="",
    )
    system = system_prompt(deps.persona, SYNTHESIZE_FROM_MEMORY_SYSTEM.render())
    return [Message(role="system", content=system), Message(role="user", content=user)]


@dataclass
class Answer:
    text: str
    how: str
    grounding: Grounding = Grounding.NONE
    sources: list[dict[str, Any]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    dropped: list[Checked] = field(default_factory=list)
    kept: list[Checked] = field(default_factory=list)
    streamed: bool = False
    """The model's statements already streamed; otherwise the whole text streams at the end."""
    fallback: bool = False


async def _memory(state: AgentState, deps: AgentDeps, declined: str) -> Answer:
    """The model's own answer under the unverified label, after the decline when the
    profile may not answer from memory and the clinician asked for it."""
    try:
        out = await llm_calls.free_text(
            deps, _NODE, "synthesize", memory_messages(state, deps), thinking=deps.thinking
        )
    except ModelFailure as exc:
        if str(exc) == UNAVAILABLE:
            raise  # said as such: asking again in a moment may give the answer asked for
        return Answer(
            declined, "no source answers; the model's own answer failed; by code", calls=exc.calls
        )
    text = hygiene.clean(out.text, deps.registry.labels())
    text = hygiene.unfinished_end(text) if out.hit_limit else text
    bad = hygiene.defects(
        text, question=state["user_query"], instructions=SYNTHESIZE_FROM_MEMORY_SYSTEM.render()
    )
    thought = f" after thinking ({out.thinking_tokens} tokens)" if out.thinking_tokens else ""
    if bad:
        how = (
            f"no source answers; the model's own answer{thought} was not shown "
            f"({'; '.join(bad)}); by code"
        )
        return Answer(declined, how, calls=out.calls)
    if deps.answers_from_memory():
        return Answer(
            f"{text}\n\n{compose.UNVERIFIED_NOTE}",
            f"written from the model's memory (this model may){thought}",
            calls=out.calls,
        )
    return Answer(
        compose.with_unverified(declined, text),
        "no source answers; the model's own answer added, unverified, as the clinician "
        f"asked{thought}",
        calls=out.calls,
    )


async def _model_answer(state: AgentState, deps: AgentDeps, results: list[ToolResult]) -> Answer:
    question = state["user_query"]
    summary = state.get("patient_summary") or ""
    record = bool(summary) and about_record(question)
    looked_up = None
    reference = None
    if (
        deps.knowledge is not None
        and not results
        and state.get("intent") == "DIRECT"
        and not record
    ):
        looked_up = question
        found = await deps.knowledge(question)
        if found is not None:
            reference = Passage(0, found.source()["title"], found.text, found.kind)
    # beside a lookup, the selected patient's record is a source only for a question about
    # that patient: given it for "interactions of warfarin and ibuprofen", a small model
    # listed the patient's labs; and never beside the chart read this turn, which holds it
    read_chart = any(
        r["error_type"] is None and _role(r, deps.registry) is ToolRole.READS_CHART for r in results
    )
    checked = _asked_interaction_check(question, results, deps.registry)
    with_record = (not results or refers_to_patient(question)) and not read_chart and not checked
    passages = gather(
        [r for r in results if not checked or _role(r, deps.registry) is not ToolRole.READS_CHART],
        record=_loaded_record(state) if with_record else None,
        reference=reference,
        image=image_text(state),
    )
    calls: list[str] = []
    written = Written()
    pages = passages
    if asks_about_a_case(question):
        passages = _about_the_case(passages, state)
    if passages:
        try:
            written = await write_cited(
                deps, _NODE, cited_messages(state, deps, passages, results), passages, question,
                SYNTHESIZE_SYSTEM.render(),
            )  # fmt: skip
        except ModelFailure as exc:
            if str(exc) == UNAVAILABLE:
                raise
            written = Written(calls=exc.calls)  # invalid output twice: nothing to show
        calls = written.calls
        if written.kept:
            grounding = Grounding.PARTLY if written.dropped else Grounding.CITED
            how = (
                f"{len(written.kept)} cited statements by the model, each quote found in its source"
            )
            if written.thinking_tokens is not None:
                how += f" (after thinking, {written.thinking_tokens} tokens)"
            return Answer(
                compose.render(written.kept), how, grounding, [p.source() for p in passages],
                calls, written.dropped, written.kept, streamed=True,
            )  # fmt: skip
        findings = _interaction_findings(passages, deps.registry)
        if findings:  # the check's finding is the answer, whether or not the model wrote it
            return Answer(
                compose.quoted(findings), "no statement by the model passed the check; the "
                "interaction reference's own lines, quoted by code", Grounding.BY_CODE,
                [p.source() for p in passages], calls, written.dropped,
            )  # fmt: skip
    may = deps.answers_from_memory()
    declined = compose.decline(
        pages,
        compose.searched(results, looked_up),
        offer_unverified=not may and not deps.show_unverified,
        why=None if passages or not pages else compose.NOT_THIS_CASE,
    )
    sources = [p.source() for p in pages]
    if may or deps.show_unverified:
        memory = await _memory(state, deps, declined)
        memory.calls = calls + memory.calls
        memory.sources, memory.dropped = sources, written.dropped
        return memory
    how = "no source answers the question; declined by code"
    return Answer(declined, how, Grounding.NONE, sources, calls, written.dropped)


async def _answer(state: AgentState, deps: AgentDeps, notes: list[str]) -> Answer:
    results = list(state.get("tool_results", []))
    if state.get("refusal"):
        return Answer(state["refusal"], "a request the assistant declines; refused by code")
    if state.get("clarification_request"):
        return Answer(state["clarification_request"], "asked the clinician for clarification")
    if state.get("fallback"):
        return Answer(
            compose.fallback_answer(results, notes),
            "the model is unavailable; pre-written fallback",
            fallback=True,
        )
    if compose.nothing_retrieved(state, results):
        return Answer(compose.NOT_RETRIEVED_ANSWER, "no source answered; stated by code")
    if results and not any(r["executed"] for r in results) and notes:
        return Answer("\n\n".join(notes), "nothing was run (rejected or stopped); stated by code")
    saved = compose.saved_writes(results, deps.registry)
    if saved:
        return Answer("\n\n".join(saved), "record write confirmed by code", Grounding.BY_CODE)
    shown = compose.shown_records(results, deps.registry, state["user_query"])
    if shown:
        sources = [p.source() for p in gather(results)]
        return Answer(
            "\n\n".join(shown), "the record shown as it is, by code", Grounding.BY_CODE, sources
        )
    told = _from_record(state, results, deps)
    if told is not None:
        return told
    try:
        return await _model_answer(state, deps, results)
    except ModelFailure as exc:
        answer = Answer(
            compose.fallback_answer(results, notes),
            "the model is unavailable; pre-written fallback",
            fallback=True,
        )
        answer.calls = exc.calls
        return answer


def _about_the_case(passages: list[Passage], state: AgentState) -> list[Passage]:
    """For a presented case, the sources that may be read as its assessment.

    A condition page (or a MedlinePlus topic) says what a condition is and what someone
    who has it should do; it says nothing about whether this patient has it. Read as the
    answer to a case, the nearest page by wording became the diagnosis (a reflux leaflet's
    advice for chest pain at rest). So such a page is read for a case only when the
    question or a fired can't-miss row names its condition; other sources (the record, an
    image, an organisation's own documents) are read as for any question. Numbers are
    given again in order, as the answer cites them."""
    rows = (c for r in state.get("cant_miss") or [] for c in r["exclude"])
    named = " ".join([unnegated(state["user_query"]), *map(normalise, rows)])
    kept = [p for p in passages if read_for_a_case(condition_of(p.title), named)]
    return [replace(p, n=i) for i, p in enumerate(kept, 1)]


def read_for_a_case(condition: str | None, named: str) -> bool:
    """Not a condition page, or a page whose condition the case names, not denies: its
    title, either of two conditions it joins with "and", or the name a title ends with in
    brackets ("Deep vein thrombosis (DVT)"). A bracket inside a title qualifies it ("High
    temperature (fever) in children": a fever in an adult does not name it). A name too
    short to have content words ("Flu", "DVT") is matched as a whole word."""
    if condition is None:
        return True
    title = _BRACKETED.sub(" ", condition)
    names = [title, *title.split(" and ")]  # "Heartburn and acid reflux" names both
    if condition.rstrip().endswith(")"):
        names += _BRACKETED.findall(condition)[-1:]
    stems, words = content_stems(named), f" {normalise(named)} "
    for name in names:
        own = content_stems(name)
        if own and own <= stems:
            return True
        if not own and f" {normalise(name)} " in words:
            return True
    return False


def _role(result: ToolResult, registry: ToolRegistry) -> ToolRole | None:
    return registry[result["tool_name"]].role


def _interaction_findings(passages: list[Passage], registry: ToolRegistry) -> list[tuple[int, str]]:
    """``(source number, line)`` for each line an interaction check marked as its finding."""
    labels = {s.label for s in registry if s.role is ToolRole.CHECKS_INTERACTIONS}
    return [(p.n, t) for p in passages if p.label in labels for t in p.citable or ()]


def _asked_interaction_check(
    question: str, results: list[ToolResult], registry: ToolRegistry
) -> bool:
    """The question asks for an interaction check ("does any of her medication interact
    with ciprofloxacin?") and one ran: its finding is the answer. Unless the clinician
    also asks to be shown the record ("pull their med list"), the chart only gave the
    check the patient's drugs and is not a source beside it: offered too, its other lines
    (falls, scans, plans) crowd out the finding that was asked for."""
    return not asks_to_see_record(question) and any(
        r["error_type"] is None
        and _role(r, registry) is ToolRole.CHECKS_INTERACTIONS
        and any(p.position(question) is not None for p in registry[r["tool_name"]].requested_by)
        for r in results
    )


def _loaded_record(state: AgentState) -> tuple[str, str] | None:
    """The active patient's loaded summary as a source ``(title, text)``; None when none."""
    summary = state.get("patient_summary")
    pid = state.get("active_patient_id")
    return (f"EHR summary of the active patient ({pid})", summary) if summary else None


def _from_record(state: AgentState, results: list[ToolResult], deps: AgentDeps) -> Answer | None:
    """A question only about what the active patient's record holds, answered with the
    record's own lines: from the chart this turn read, or else the loaded summary."""
    question = state["user_query"]
    ok = [r for r in results if r["error_type"] is None]
    if len(ok) != len(results) or any(
        deps.registry[r["tool_name"]].role is not ToolRole.READS_CHART for r in ok
    ):
        return None  # another source was consulted, or one failed: the model weighs them
    record = gather(ok, record=None if ok else _loaded_record(state))
    if len(record) != 1:
        return None
    held = record[0].text
    if not (asks_what_record_holds(question) or only_names_record_items(question, held)):
        return None
    text = record_answer(question, held)
    if not text:
        return None
    how = "the lines of the record the question asks about, by code"
    return Answer(text, how, Grounding.BY_CODE, [record[0].source()])


def _left_out(dropped: list[Checked]) -> str:
    return "; ".join(f"left out “{c.statement.text}” ({c.failure})" for c in dropped)


@traced(_NODE)
async def synthesize(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    results = list(state.get("tool_results", []))
    notes = compose.error_notes(state)
    answer = await _answer(state, deps, notes)
    text = answer.text
    if not state.get("clarification_request"):
        extra = compose.unchecked_notes(results) if answer.grounding is not Grounding.NONE else []
        text = compose.with_notes(text, [*notes, *extra])
    # whatever was written, a fired can't-miss row opens the answer (the final text replaces
    # what streamed, adding to it and withdrawing nothing)
    text = open_with_cant_miss(text, state.get("cant_miss") or [])
    if not answer.streamed:
        emit(AnswerToken(node=_NODE, label=NODE_LABELS[_NODE], text=text))
    confidence = derive(
        answer.grounding,
        source_failed=bool(notes),
        unchecked=any(
            r["unchecked"] or compose.not_consulted(r) for r in results if r["error_type"] is None
        ),
    )
    how = answer.how + (f"; {_left_out(answer.dropped)}" if answer.dropped else "")
    entities = state.get("extracted_entities") or {}
    conversation = [
        *(state.get("conversation") or []),
        {"role": "user", "content": state["user_query"]},
        {"role": "assistant", "content": text},
    ][-KEPT_MESSAGES:]
    return {
        "final_response": text,
        "fallback": answer.fallback or bool(state.get("fallback")),
        "conversation": conversation,
        "confidence_level": confidence.level,
        "confidence_reason": confidence.reason,
        "sources_used": answer.sources,
        "follow_up_questions": compose.follow_up_questions(
            drugs=entities.get("drug_mentions", []),
            roles={deps.registry[r["tool_name"]].role for r in results},
            patient=bool(state.get("active_patient_id")),
        ),
        "llm_calls": answer.calls,
        "cited": [
            {"text": c.statement.text, "quote": c.statement.quote, "sources": list(c.cited)}
            for c in answer.kept
        ],
        "left_out": [c.statement.text for c in answer.dropped],
        "trace": [
            decision(_NODE, "answer", how, title="Wrote the answer"),
            decision(
                _NODE,
                confidence.level,
                confidence.reason,
                title=f"Confidence: {confidence.level}",
            ),  # fmt: skip
        ],
    }

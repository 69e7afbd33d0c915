"""Node ③ TOOL_SELECT: which tool, then its arguments — two separate calls.

Isolating the tool decision from argument extraction removed the null cascade and
raised tool accuracy from 80% to 90%. Stage 1 sees full descriptions and one example
matched to the intent's hint; stage 2 sees only the chosen tool's schema plus the
entities found by code. On re-entry both see earlier results, so the model picks the
next tool from concrete data (reactive, never a plan), or ``none`` when it sees nothing
left to look up — a signal code checks against the task patterns before accepting it
(the model proposes, code disposes).
"""

from __future__ import annotations

import json
from typing import Any, get_origin

from langgraph.runtime import Runtime

from docgemma.agent import llm_calls
from docgemma.agent.cant_miss import REFERS_BACK
from docgemma.agent.context import (
    classifier_text,
    clinical_context,
    entity_hints,
    history_text,
    image_text,
    known_patient_ids,
    results_text,
)
from docgemma.agent.deps import AgentDeps
from docgemma.agent.entities import drug_dictionary
from docgemma.agent.grounding import Evidence
from docgemma.agent.orders import ordered_write, write_to_propose
from docgemma.agent.person_names import introduced_names
from docgemma.agent.prompts import (
    ANALYTICAL_PREFIX,
    NO_FURTHER_TOOL,
    TOOL_ARGS_SYSTEM,
    TOOL_ARGS_USER,
    TOOL_SELECT_SYSTEM,
    TOOL_SELECT_USER,
)
from docgemma.agent.references import (
    ACTS_ON_A_DRUG,
    DRUG_QUESTION,
    asks_about_a_case,
    asks_if_patient_may_take,
    only_names_a_patient,
    patient_to_find,
    points_to_record_medications,
)
from docgemma.agent.rules import answered_tools, proposes_duplicate, waiting_tools
from docgemma.agent.state import AgentState
from docgemma.agent.tracing import decision, note, traced
from docgemma.llm.repair import ModelFailure
from docgemma.llm.types import Message
from docgemma.tools.base import NO_TOOL, ToolRegistry, ToolSpec
from docgemma.tools.facts import ToolRole
from docgemma.tools.grounding import Grounding, field_grounding


def _example(registry: ToolRegistry, suggested: str | None) -> tuple[str, str]:
    """The one-shot example: the suggested tool's own, else the first tool that has one."""
    specs = [registry[suggested]] if suggested in registry else []
    specs += list(registry)
    for spec in specs:
        if spec.example is not None:
            return spec.example.query, spec.name
    first = next(iter(registry))
    return f"Use {first.label.lower()}", first.name


def selection_messages(state: AgentState, registry: ToolRegistry) -> list[Message]:
    query, tool = _example(registry, state.get("suggested_tool"))
    system = TOOL_SELECT_SYSTEM.render(
        tool_list=registry.describe("full"), example_query=query, example_tool=tool
    )
    user = TOOL_SELECT_USER.render(
        history=history_text(state.get("conversation_history", [])),
        image=image_text(state),
        user_query=state["user_query"],
        clinical_context=clinical_context(state),
        previous_results=results_text(state.get("tool_results", []))
        + (NO_FURTHER_TOOL if _succeeded(state) else ""),
        entity_hints=entity_hints(state),
    )
    return [Message(role="system", content=system), Message(role="user", content=user)]


def argument_messages(state: AgentState, registry: ToolRegistry, tool: str) -> list[Message]:
    spec = registry[tool]
    retry_note = ""
    results = state.get("tool_results", [])
    if state.get("pending_stage2_only") and results:
        last = results[-1]
        retry_note = (
            f"The previous attempt with arguments {json.dumps(last['args'])} did not work: "
            f"{last['formatted_result']} Use different arguments.\n"
        )
    system = TOOL_ARGS_SYSTEM.render(tool_name=spec.name, tool_description=spec.description)
    user = TOOL_ARGS_USER.render(
        image=image_text(state),
        user_query=state["user_query"],
        entity_hints=entity_hints(state),
        previous_results=results_text(results),
        retry_note=retry_note,
    )
    return [Message(role="system", content=system), Message(role="user", content=user)]


def _withheld(state: AgentState, registry: ToolRegistry) -> frozenset[str]:
    """Tools not offered this turn: an image tool with no image attached."""
    return registry.unavailable(has_image=bool(state.get("has_image")))


def _from_classifier(state: AgentState, deps: AgentDeps) -> str | None:
    classifier = deps.classifier("tool")
    if classifier is None:
        return None
    skip = _succeeded(state) | set(state.get("skipped_tools", [])) | _withheld(state, deps.registry)
    scores = {
        k: v
        for k, v in classifier.predict(classifier_text(state)).scores.items()
        if k in deps.registry and k not in skip
    }
    if not scores:
        return None
    best = max(scores, key=scores.__getitem__)
    return best if scores[best] >= deps.settings.classifier_threshold else None


def _succeeded(state: AgentState) -> set[str]:
    return answered_tools(state.get("tool_results", []))


def _pattern_choice(state: AgentState, deps: AgentDeps, tool: str) -> str | None:
    """The tool the query's task patterns need instead of the proposal; None keeps it.

    Model proposes, code disposes. The patterns list the tools the query
    asks for, in the order it asks. A patient is searched for before a tool that needs
    one, but not when the clinician gave the record's id (the chart is read instead). A
    proposal that repeats a finished tool, answers none, or lies outside the patterns
    gets the first tool waiting, unless it is a record write. Code substitutes a record
    write only for a message that orders it (``orders``), once nothing else waits, and
    then for any other proposal, a write included; a write the model proposes is never
    traded for a lookup, except for the search that finds
    the patient the message names: whatever is proposed, a named patient whom the proposal
    or an ordered write needs is searched for first. A tool given up on this turn
    is never run again: the next one waiting, else the ordered write, else none.
    """
    registry = deps.registry
    done = _succeeded(state)
    known = bool(known_patient_ids(state))
    finder = registry.with_role(ToolRole.FINDS_PATIENT)
    chart = registry.with_role(ToolRole.READS_CHART)
    calls_up = only_names_a_patient(state["user_query"])
    if chart and calls_up and tool != chart.name and chart.name not in done:
        return chart.name  # "Patient gkim-008 please.": the patient is called up
    tried = {r["tool_name"] for r in state.get("tool_results", [])}
    pages = registry.with_role(ToolRole.SEARCHES_KNOWLEDGE_BASE)
    if pages and pages.name not in tried and tool in registry:
        role = registry[tool].role
        if (role is ToolRole.READS_LABEL and asks_about_a_case(state["user_query"])) or (
            role in _DRUG_ROLES and _follows_up_a_case(state)
        ):
            return pages.name  # a case presentation: its conditions, not a drug in its story
    if finder and finder.name not in tried and patient_to_find(state["user_query"]):
        return finder.name if tool != finder.name else None  # "Look up James Wilson."
    if finder and tool == finder.name and known and tool not in done and chart:
        return chart.name  # a search by name cannot find an id
    if finder and not known and _named_patient_to_find(state, registry, tool):
        return finder.name  # "Find Maria Garcia and prescribe …": she is found first
    checker = registry.with_role(ToolRole.CHECKS_INTERACTIONS)
    if (
        checker
        and tool != checker.name
        and checker.name not in tried
        and _may_take(state, registry, tool)
    ):
        return checker.name  # "Can she take ibuprofen?": against what she already takes
    skipped = set(state.get("skipped_tools", []))
    waiting = [
        t
        for t in waiting_tools(
            state["user_query"],
            state.get("tool_results", []),
            skipped,
            patient_known=known,
            registry=registry,
        )
        if not registry[t].writes_ehr
    ]
    ordered = write_to_propose(
        state["user_query"],
        registry,
        drug_named=bool((state.get("extracted_entities") or {}).get("drug_mentions")),
        patient_known=known,
        tried=tried,
    )
    if tool in skipped:
        return waiting[0] if waiting else (ordered or NO_TOOL)
    if not waiting and ordered and tool != ordered:
        return ordered  # an order to write is answered with its card, not a lookup or
        # another write ("Start atorvastatin 20 mg nightly for …" is a prescription)
    if (
        chart
        and chart.name in waiting
        and tool in registry
        and tool != chart.name
        and _needs_record_drugs(state["user_query"], registry[tool])
    ):
        return chart.name  # "check their med list for interactions": the list comes first
    if not waiting or tool == waiting[0]:
        return None
    if finder and finder.name in waiting and tool in registry and registry[tool].needs_patient:
        return finder.name
    if tool in waiting or (tool in registry and registry[tool].writes_ehr):
        return None  # a write the clinician asked for is not traded for a lookup
    return waiting[0]


_DRUG_ROLES = frozenset({ToolRole.READS_LABEL, ToolRole.CHECKS_INTERACTIONS})


def _follows_up_a_case(state: AgentState) -> bool:
    """A message that adds to the case presented before and asks about it ("She is also on
    the pill. What next?"): the case's can't-miss rows fired, the message asks what the case
    is or what to do, and asks nothing a label answers (a dose, an interaction, whether to
    give, stop or continue a drug)."""
    query = state["user_query"]
    return (
        bool(state.get("cant_miss"))
        and REFERS_BACK.search(query) is not None
        and not DRUG_QUESTION.search(query)
        and not ACTS_ON_A_DRUG.search(query)
    )


def _named_patient_to_find(state: AgentState, registry: ToolRegistry, tool: str) -> bool:
    """The message names a patient ("find patient …", "for Mr …") whom no search has looked
    for yet this turn, and the proposal, or a write the message orders, needs a patient."""
    finder = registry.with_role(ToolRole.FINDS_PATIENT)
    if finder is None or finder.name in {r["tool_name"] for r in state.get("tool_results", [])}:
        return False
    query = state["user_query"]
    drugs = bool((state.get("extracted_entities") or {}).get("drug_mentions"))
    ordered = ordered_write(query, registry, drug_named=drugs)
    needs = [t for t in (tool, ordered) if t in registry and registry[t].needs_patient]
    return bool(needs) and bool(introduced_names(query))


def _may_take(state: AgentState, registry: ToolRegistry, tool: str) -> bool:
    """A question whether the selected patient may take a drug that is not on her list,
    with her medications known: the drug is checked against them first, whatever lookup
    was proposed. A record write proposed is left to its own review."""
    if tool in registry and registry[tool].writes_ehr:
        return False
    query = state["user_query"]
    if not asks_if_patient_may_take(query):
        return False
    on_record = {d.lower() for d in Evidence.of(state).record_drugs}
    named = {d.lower() for d in drug_dictionary().find(query)}
    return bool(on_record) and bool(named - on_record)


def _needs_record_drugs(query: str, spec: ToolSpec) -> bool:
    """A drug-list tool asked about the patient's own medications, which the chart lists."""
    return points_to_record_medications(query) and any(
        kind is Grounding.DRUG and get_origin(spec.args.model_fields[name].annotation) is list
        for name, kind in field_grounding(spec.args).items()
    )


@traced("tool_select")
async def tool_select(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    calls: list[str] = []
    decisions = []
    again = state.get("reproposal")
    tried = {r["tool_name"] for r in state.get("tool_results", [])}
    if again and again["tool"] not in tried:  # the latest card with the clinician's changes
        shown = ", ".join(f"{k}: {v}" for k, v in again["args"].items())
        return {
            "pending_stage2_only": False,
            "current_tool": again["tool"],
            "current_args": dict(again["args"]),
            "trace": [
                decision("tool_select", again["tool"], again["why"]),
                note("tool_select", f"Chose the {deps.registry[again['tool']].label}", shown),
            ],
        }
    try:
        if state.get("pending_stage2_only") and state.get("current_tool"):
            tool, source = state["current_tool"], "retry with different arguments"
        else:
            tool, source = _from_classifier(state, deps), "embedding classifier"
            if tool is None:
                choice, calls = await llm_calls.structured(
                    deps,
                    "tool_select",
                    "tool_select_1",
                    selection_messages(state, deps.registry),
                    deps.registry.selection_model(
                        allow_none=bool(_succeeded(state)),
                        withheld=_withheld(state, deps.registry),
                    ),
                    prefix=ANALYTICAL_PREFIX,
                )
                tool, source = choice.tool_name, "model"
            needed = _pattern_choice(state, deps, tool)
            if needed is not None:
                decisions.append(decision("tool_select", tool, f"proposed by the {source}"))
                tool, source = needed, "task pattern (the proposal leaves it unanswered)"
            if tool == NO_TOOL:
                reason = (
                    "the proposed source was given up on this turn; no other source waits"
                    if needed is not None
                    else "the model sees no further source to consult; no task pattern waits"
                )
                return {
                    "llm_calls": calls,
                    "pending_stage2_only": False,
                    "current_tool": None,
                    "current_args": None,
                    "trace": [
                        *decisions,
                        decision(
                            "tool_select", "synthesize", reason, title="No further source needed"
                        ),
                    ],
                }
        decisions.append(decision("tool_select", tool, f"chosen by the {source}"))
        spec = deps.registry[tool]
        args_value, more = await llm_calls.structured(
            deps,
            "tool_select",
            "tool_select_2",
            argument_messages(state, deps.registry, tool),
            spec.args,
        )
        calls += more
    except ModelFailure as exc:
        return {
            "fallback": True,
            "current_tool": None,
            "llm_calls": calls + exc.calls,
            "trace": [
                *decisions,
                decision(
                    "tool_select",
                    "fallback",
                    str(exc),
                    title="Choosing a source",
                    detail="the model is unavailable",
                    status="error",
                ),
            ],
        }
    args = args_value.model_dump(mode="json", exclude_none=True)
    update: dict[str, Any] = {"llm_calls": calls, "pending_stage2_only": False}
    if proposes_duplicate(tool, args, state.get("tool_results", [])):
        decisions.append(
            decision("tool_select", "synthesize", "this exact request was already made this turn")
        )
        update.update(current_tool=None, current_args=None)
    else:
        update.update(current_tool=tool, current_args=args)
    shown = ", ".join(f"{k}: {v}" for k, v in args.items())
    update["trace"] = [*decisions, note("tool_select", f"Chose the {spec.label}", shown)]
    return update

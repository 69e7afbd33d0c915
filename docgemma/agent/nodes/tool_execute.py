"""Node ④ TOOL_EXECUTE: validate, gate writes on approval, run with a deadline, format.

Deterministic, and only the sequence: the checks are ``validation``, the clinician's
approval of a write is ``approval_gate``, running and recording a call is ``tool_run``.
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from docgemma.agent.amendment import saved_write
from docgemma.agent.approval_gate import approve_write, review_step, review_write
from docgemma.agent.confirmation import unconfirmed
from docgemma.agent.context import patient_ids_in
from docgemma.agent.deps import AgentDeps
from docgemma.agent.entities import drug_dictionary
from docgemma.agent.grounding import Evidence
from docgemma.agent.references import points_to_record_medications
from docgemma.agent.state import AgentState
from docgemma.agent.tool_run import run_tool, to_result
from docgemma.agent.tracing import (
    NODE_LABELS,
    TIMELINE_SUMMARY_CHARS,
    decision,
    record,
    traced,
)
from docgemma.agent.validation import validate_call
from docgemma.events import ToolCalled, ToolFinished, emit
from docgemma.tools.base import ToolErrorType, ToolOutcome, ToolSpec
from docgemma.tools.facts import ToolRole
from docgemma.tools.grounding import Grounding, field_grounding
from docgemma.tools.text import shorten

_NODE = "tool_execute"
_CORRECTED = "Corrected the request"


def _one_drug_question(
    state: AgentState, deps: AgentDeps, spec: ToolSpec, args: dict[str, Any]
) -> tuple[ToolSpec, dict[str, Any]] | None:
    """A drug-list tool (the interaction check) proposed for a message that names one drug
    and asks for none of that tool's work ("What are the contraindications of
    lisinopril?" became an interaction check of lisinopril with itself): the drug's label
    reads it instead: the label tool and its arguments, or None."""
    reader = deps.registry.with_role(ToolRole.READS_LABEL)
    lists = [
        {str(d).strip().lower() for d in args[n]}
        for n, kind in field_grounding(spec.args).items()
        if kind is Grounding.DRUG and isinstance(args.get(n), list)
    ]
    query = state["user_query"]
    named = list(dict.fromkeys(drug_dictionary().find(query)))
    if reader is None or len(lists) != 1 or len(lists[0]) > 1 or len(named) != 1:
        return None  # only a list of one drug (or that drug twice) is a one-drug question
    if any(p.position(query) is not None for p in spec.requested_by):
        return None  # the question does ask for this tool ("interactions of lisinopril?")
    if points_to_record_medications(query):
        return None  # the rest of the list is the patient's medications
    field = next(n for n, k in field_grounding(reader.args).items() if k is Grounding.DRUG)
    return reader, {field: named[0]}


@traced(_NODE)
async def tool_execute(state: AgentState, runtime: Runtime[AgentDeps]) -> dict[str, Any]:
    deps = runtime.context
    spec = deps.registry[state["current_tool"]]
    args = dict(state.get("current_args") or {})
    retry = bool(state.get("retrying"))
    labels = deps.registry.labels()
    update: dict[str, Any] = {
        "retrying": False,
        "step_count": state.get("step_count", 0) + (0 if retry else 1),
    }
    has_image = bool(state.get("has_image"))
    again = state.get("reproposal")
    replacing = None
    if again and again["tool"] == spec.name and again["args"] == args:
        evidence = None  # the latest card changed by the clinician's words, as an edit is
        replacing = again.get("replacing")  # this very card, not a later proposal of its tool
    else:
        evidence = Evidence.of(state)
    check, parsed = validate_call(spec, args, evidence=evidence, has_image=has_image)
    swapped = None if check.ok else _one_drug_question(state, deps, spec, args)
    if swapped is not None:
        proposed = spec.label
        spec, args = swapped
        check, parsed = validate_call(spec, args, evidence=evidence, has_image=has_image)
        update["current_tool"] = spec.name
    if not check.ok:
        outcome = ToolOutcome(
            error_type=check.error_type,
            missing_fields=check.missing_fields,
            error_detail=check.reason,
            formatted=check.question,
            entity=", ".join(check.unknown_drugs) or None,
            suggestions=[s for options in check.unknown_drugs.values() for s in options],
        )
        result = to_result(spec, args, outcome, labels, retry=retry, executed=False)
        if check.unknown_drugs:  # the next message may confirm the names offered
            update["unconfirmed_drugs"] = unconfirmed(state["user_query"], check.unknown_drugs)
        return {
            **update,
            "tool_results": [result],
            "trace": [
                decision(
                    _NODE,
                    "invalid_args",
                    check.reason,
                    title=f"Could not use the {spec.label}",
                    status="error",
                )
            ],
        }

    decisions = []  # each correction of the model's arguments is a step the clinician sees
    if swapped is not None:
        drug = next(iter(args.values()))
        reason = f"a question about {drug} alone: its label answers it, not the {proposed}"
        decisions.append(decision(_NODE, "one_drug", reason, title=_CORRECTED))
    if check.restated:  # the clinician's own words, for the record and the approval card
        args = {k: v for k, v in (args | check.restated).items() if v is not None}
        kept = "; ".join(
            f"{k}: {'(left out)' if v is None else v}" for k, v in check.restated.items()
        )
        reason = f"{kept} (as the clinician's words and the record give it)"
        decisions.append(decision(_NODE, "restate_args", reason, title=_CORRECTED))
    if check.narrowed:  # what the question asks this tool for; the rest is for later steps
        args |= check.narrowed
        kept = ", ".join(f"{k}: {v}" for k, v in check.narrowed.items())
        reason = f"{kept} (what the question asks this tool for)"
        decisions.append(decision(_NODE, "narrow_args", reason, title=_CORRECTED))
    if check.pruned:  # a condition in a drug list, or a drug nobody named
        args |= {k: getattr(parsed, k) for k in check.pruned}  # the items kept
        left = "; ".join(f"{', '.join(out)} from {k}" for k, out in check.pruned.items())
        reason = f"left out {left} (not given as such in the question)"
        decisions.append(decision(_NODE, "prune_args", reason, title=_CORRECTED))
    if check.dropped:  # an optional value the clinician never gave is not sent
        args = {k: v for k, v in args.items() if k not in check.dropped}
        reason = f"left out {', '.join(check.dropped)} (not given in the question)"
        decisions.append(decision(_NODE, "drop_args", reason, title=_CORRECTED))
    if check.tidied:  # the schema's own rewrite (a dose that repeated the frequency): the
        args |= check.tidied  # card shows what would be written
    ctx: dict[str, Any] = {}
    if spec.writes_ehr:
        review = await review_write(spec, parsed, deps, replacing)  # the card shows it
        if review is not None:
            decisions.append(review_step(spec, review, _NODE))
        gate = approve_write(
            spec,
            args,
            parsed,
            state,
            deps,
            retry=retry,
            node=_NODE,
            review=review,
            replacing=replacing,
        )
        if gate.stopped is not None:
            stopped = gate.stopped
            return {**update, **stopped, "trace": [*decisions, *stopped.get("trace", [])]}
        if review is not None and gate.args != args:  # edited: what is written, checked
            edited = await review_write(spec, gate.parsed, deps, replacing)
            decisions += [review_step(spec, edited, _NODE, edited=True)] if edited else []
        args, parsed, ctx = gate.args, gate.parsed, gate.context

    emit(
        ToolCalled(
            node=_NODE, label=NODE_LABELS[_NODE], tool=spec.name, tool_label=spec.label, args=args
        )
    )
    start = time.perf_counter()
    outcome = await run_tool(spec, parsed, deps, question=state.get("user_query"), **ctx)
    duration = time.perf_counter() - start
    result = to_result(spec, args, outcome, labels, retry=retry, executed=True)
    finished = record(
        ToolFinished(
            node=_NODE,
            label=NODE_LABELS[_NODE],
            tool=spec.name,
            tool_label=spec.label,
            ok=outcome.ok,
            error_type=result["error_type"],
            duration_s=round(duration, 4),
            summary=shorten(result["formatted_result"], TIMELINE_SUMMARY_CHARS),
        )
    )
    if ctx and outcome.ok:  # a failed write is not "already saved": a retry asks again
        update["executed_writes"] = [*(state.get("executed_writes") or []), ctx["idempotency_key"]]
        if (state.get("declined_write") or {}).get("tool") == spec.name:
            update["declined_write"] = None  # saved now: "again" no longer means that card
        if isinstance(outcome.data, dict) and isinstance(outcome.data.get("reference"), str):
            turn = state.get("turn_number", 0)  # "make that 20 mg" next corrects this entry
            update["saved_write"] = saved_write(spec, args, turn, outcome.data["reference"])
    update["tool_results"] = [result]
    update["current_args"] = args
    update["trace"] = [*decisions, finished]
    if spec.role is ToolRole.FINDS_PATIENT:  # a later "his chart" means this search's patient
        unfound = outcome.error_type is ToolErrorType.NOT_FOUND
        update["unfound_patient"] = result["entity"] if unfound else None
        several = (outcome.patient_matches or 0) > 1 and isinstance(outcome.data, dict)
        update["patient_choices"] = outcome.data.get("candidates") if several else None
    if spec.role is ToolRole.FINDS_PATIENT and outcome.ok and outcome.patient_matches in (None, 1):
        found = patient_ids_in(outcome.data)
        if len(found) == 1:
            update["active_patient_id"] = found[0]
    elif spec.needs_patient and outcome.ok and isinstance(args.get("patient_id"), str):
        # the record answered for this id: "her allergies" next means this patient
        update["active_patient_id"] = args["patient_id"]
    return update

"""Node ④ TOOL_EXECUTE: validate, gate writes on approval, run with a deadline, format.

Deterministic. Tools never raise into the graph: a timeout or a crash becomes a
typed outcome, and the raw detail is logged, never shown to a model — what later
nodes see is the pre-formatted message under the tool's clinical label. An EHR write
pauses the graph (``interrupt``) until the clinician approves, edits or rejects it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from docgemma.agent.approval import approval_request
from docgemma.agent.context import patient_ids_in
from docgemma.agent.deps import AgentDeps
from docgemma.agent.events import ToolCalled, ToolFinished
from docgemma.agent.grounding import Evidence
from docgemma.agent.outcome import ApprovalDecision
from docgemma.agent.rules import format_error, scrub_tool_names
from docgemma.agent.state import AgentState, ToolResult
from docgemma.agent.tracing import NODE_LABELS, decision, emit, record, traced
from docgemma.agent.validation import validate_call
from docgemma.tools.base import ToolErrorType, ToolOutcome, ToolSpec

log = logging.getLogger(__name__)
_MAX_RESULT_CHARS = 2000
_CUT_MARK = "[further details omitted]"
_NODE = "tool_execute"


async def run_tool(spec: ToolSpec, args: Any, deps: AgentDeps, **ctx: Any) -> ToolOutcome:
    """Run one tool under the deadline; every failure becomes an outcome, never an exception."""
    try:
        return await asyncio.wait_for(
            spec.run(args, deps.tool_context(**ctx)), timeout=deps.settings.tool_timeout_s
        )
    except TimeoutError:
        return ToolOutcome(
            error_type=ToolErrorType.TIMEOUT,
            error_detail=f"no answer in {deps.settings.tool_timeout_s}s",
        )
    except Exception as exc:  # a tool bug must not end the turn
        log.exception("tool %s raised", spec.name)
        return ToolOutcome(
            error_type=ToolErrorType.SERVER_ERROR, error_detail=f"{type(exc).__name__}: {exc}"
        )


def to_result(
    spec: ToolSpec,
    args: dict[str, Any],
    outcome: ToolOutcome,
    labels: dict[str, str],
    *,
    retry: bool,
    executed: bool,
) -> ToolResult:
    """The state's record of a call: formatted text or the pre-formatted error, never raw errors."""
    error = outcome.error_type.value if outcome.error_type else None
    entity = outcome.entity or next((str(v) for v in args.values() if isinstance(v, str)), None)
    if error:
        if outcome.error_detail:
            log.info("tool %s failed (%s): %s", spec.name, error, outcome.error_detail)
        # a tool's own message is pre-formatted and often says more than the template
        formatted = scrub_tool_names(outcome.formatted, labels) or format_error(
            error, spec.label, entity
        )
    elif outcome.formatted or outcome.data:
        text = outcome.formatted or json.dumps(outcome.data, default=str)
        if len(text) > _MAX_RESULT_CHARS:  # say so: a silent cut could hide a lab or a note
            text = text[:_MAX_RESULT_CHARS].rstrip() + " " + _CUT_MARK
        formatted = scrub_tool_names(text, labels)
    else:
        formatted = f"No results were found for {entity or 'the request'}."
    suggestions = list(outcome.suggestions) or [
        f"{c.get('name', '?')} (ID {c.get('patient_id', '?')}"
        + (f", born {c['birth_date']})" if c.get("birth_date") else ")")
        for c in outcome.data.get("candidates", [])
        if isinstance(c, dict)
    ]
    return ToolResult(
        tool_name=spec.name,
        tool_label=spec.label,
        args=args,
        result=outcome.data if not error else {},
        formatted_result=formatted,
        error_type=error,
        entity=entity,
        missing_fields=list(outcome.missing_fields),
        suggestions=suggestions,
        patient_matches=outcome.patient_matches,
        sources=[s.model_dump(mode="json") for s in outcome.sources],
        quality=None,
        retry=retry,
        executed=executed,
    )


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
    check, parsed = validate_call(
        spec.name,
        spec.args,
        args,
        evidence=Evidence.of(state),
        has_image=bool(state.get("has_image")),
    )
    if not check.ok:
        outcome = ToolOutcome(
            error_type=ToolErrorType(check.error_type),
            missing_fields=check.missing_fields,
            error_detail=check.reason,
        )
        result = to_result(spec, args, outcome, labels, retry=retry, executed=False)
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

    decisions = []
    if check.dropped:  # an optional value the clinician never gave is not sent
        args = {k: v for k, v in args.items() if k not in check.dropped}
        decisions.append(
            decision(_NODE, "drop_args", f"not given by the clinician: {', '.join(check.dropped)}")
        )
    ctx: dict[str, Any] = {}
    if spec.writes_ehr:
        turn = state.get("turn_number", 0)
        request = approval_request(spec, args, deps.thread_id, turn)
        if request.idempotency_key in (state.get("executed_writes") or []):
            outcome = ToolOutcome(
                data={"already_written": True}, formatted=f"{request.summary} was already saved."
            )
            result = to_result(spec, args, outcome, labels, retry=retry, executed=False)
            return {
                **update,
                "tool_results": [result],
                "trace": [decision(_NODE, "skip_write", "this exact write was already executed")],
            }
        answer = ApprovalDecision.model_validate(interrupt(request.model_dump(mode="json")))
        if answer.action == "reject":
            outcome = ToolOutcome(
                error_type=ToolErrorType.REJECTED_BY_CLINICIAN,
                entity=request.summary,
                error_detail=answer.reason,
            )
            result = to_result(spec, args, outcome, labels, retry=retry, executed=False)
            return {
                **update,
                "tool_results": [result],
                "error_messages": [result["formatted_result"]],
                "trace": [
                    decision(
                        _NODE,
                        "rejected",
                        answer.reason or "the clinician rejected the write",
                        title=f"{spec.label} rejected",
                        detail=request.summary,
                        status="error",
                    )
                ],
            }
        if answer.action == "edit":
            args = {**args, **(answer.args or {})}
            check, parsed = validate_call(
                spec.name,
                spec.args,
                args,
                evidence=None,
                has_image=False,
            )
            if not check.ok:
                outcome = ToolOutcome(
                    error_type=ToolErrorType(check.error_type), missing_fields=check.missing_fields
                )
                result = to_result(spec, args, outcome, labels, retry=retry, executed=False)
                return {
                    **update,
                    "tool_results": [result],
                    "trace": [decision(_NODE, "invalid_edit", check.reason)],
                }
            request = approval_request(spec, args, deps.thread_id, turn)
        ctx = {"approved_by": answer.approved_by, "idempotency_key": request.idempotency_key}

    emit(
        ToolCalled(
            node=_NODE, label=NODE_LABELS[_NODE], tool=spec.name, tool_label=spec.label, args=args
        )
    )
    start = time.perf_counter()
    outcome = await run_tool(spec, parsed, deps, **ctx)
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
            summary=result["formatted_result"][:200],
        )
    )
    if ctx and outcome.ok:  # a failed write is not "already saved": a retry asks again
        update["executed_writes"] = [*(state.get("executed_writes") or []), ctx["idempotency_key"]]
    update["tool_results"] = [result]
    update["current_args"] = args
    update["trace"] = [*decisions, finished]
    if spec.name == "search_patient" and outcome.ok and outcome.patient_matches in (None, 1):
        found = patient_ids_in(outcome.data)
        if len(found) == 1:
            update["active_patient_id"] = found[0]
    return update

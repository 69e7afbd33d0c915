"""The approval gate of tool execution: no EHR write runs without the clinician's yes.

A write pauses the graph (``interrupt``) with its proposal; the clinician approves,
edits or rejects it. An edited write is validated again (the clinician's values are
given, so not checked against the message), and a write already executed in this
thread is not proposed twice; a card correcting a saved entry says which entry it
replaces. Before the card is shown, a write that declares a check
against the record (``ToolSpec.review``) is checked by code, and the card carries what
the check found. A rejection is answered by code.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from langgraph.types import interrupt
from pydantic import BaseModel

from docgemma.agent.amendment import Replacing, declined_write
from docgemma.agent.approval import approval_request
from docgemma.agent.deps import AgentDeps
from docgemma.agent.outcome import ApprovalDecision
from docgemma.agent.state import AgentState, ToolResult
from docgemma.agent.tool_run import to_result
from docgemma.agent.tracing import decision
from docgemma.agent.validation import validate_call
from docgemma.tools.base import ToolErrorType, ToolOutcome, ToolSpec
from docgemma.tools.write_review import WriteReview, not_checked

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GateVerdict:
    """Run the write with ``args`` as the clinician approved them, or stop with ``stopped``."""

    args: dict[str, Any]
    parsed: BaseModel | None = None
    context: dict[str, Any] = field(default_factory=dict)
    """``approved_by`` and ``idempotency_key`` for the tool's context, and ``replaces`` for a
    correction of a saved entry."""
    stopped: dict[str, Any] | None = None
    """The node's state update when the write does not run."""


async def review_write(
    spec: ToolSpec, parsed: BaseModel, deps: AgentDeps, replacing: Replacing | None = None
) -> WriteReview | None:
    """The write's own check against the record (``ToolSpec.review``), under the tools'
    deadline; a check that fails says on the card that nothing was checked. A correction's
    check leaves out the entry it replaces."""
    if spec.review is None:
        return None
    context = deps.tool_context(replaces=replacing["replaces"] if replacing else None)
    try:
        return await asyncio.wait_for(
            spec.review(parsed, context), timeout=deps.settings.tool_timeout_s
        )
    except Exception as exc:  # noqa: BLE001 — the card says the check did not run
        log.warning("the check of a proposed %s failed: %r", spec.name, exc)
        why = "the check did not finish" if isinstance(exc, TimeoutError) else "the check failed"
        return not_checked(why)


def review_step(spec: ToolSpec, review: WriteReview, node: str, *, edited: bool = False) -> Any:
    """The check as a step of the timeline: what was read, and each finding that matters;
    one with a warning is marked as such."""
    what = f"the edited {spec.label.lower()}" if edited else f"the {spec.label.lower()}"
    status = "error" if review.warnings else "done"
    title = f"Checked {what} against the chart"
    return decision(
        node, "chart_check", f"{review.headline()}: {review.account()}", title=title, status=status
    )


def declined(summary: str, reason: str | None) -> str:
    """The answer to a rejected write, written by code: what was not saved, and how to get a
    new proposal (a model had written "No prescription prescribed.")."""
    because = f" Reason given: {reason.strip().rstrip('.')}." if reason and reason.strip() else ""
    return (
        f"Not saved: you declined the proposed {summary}. Nothing was written to the record."
        f'{because} To change it, say what to change or add ("save it again with … added"), '
        "and a new proposal will be shown for your approval."
    )


def approve_write(
    spec: ToolSpec,
    args: dict[str, Any],
    parsed: BaseModel | None,
    state: AgentState,
    deps: AgentDeps,
    *,
    retry: bool,
    node: str,
    review: WriteReview | None = None,
    replacing: Replacing | None = None,
) -> GateVerdict:
    """Ask the clinician about a proposed write (pausing the graph) and act on the answer;
    ``node`` names the node the decisions are recorded under; ``review`` goes on the card;
    ``replacing``: the saved entry a correction's card replaces."""
    labels = deps.registry.labels()
    turn = state.get("turn_number", 0)
    replaced = replacing["replaced"] if replacing else None
    request = approval_request(spec, args, deps.thread_id, turn, review, replaces=replaced)

    def record(call_args: dict[str, Any], outcome: ToolOutcome) -> ToolResult:
        return to_result(spec, call_args, outcome, labels, retry=retry, executed=False)

    if request.idempotency_key in (state.get("executed_writes") or []):
        done = ToolOutcome(
            data={"already_written": True}, formatted=f"{request.summary} was already saved."
        )
        return GateVerdict(
            args,
            stopped={
                "tool_results": [record(args, done)],
                "trace": [decision(node, "skip_write", "this exact write was already executed")],
            },
        )
    answer = ApprovalDecision.model_validate(interrupt(request.model_dump(mode="json")))
    if answer.action == "reject":
        rejected = record(
            args,
            ToolOutcome(
                error_type=ToolErrorType.REJECTED_BY_CLINICIAN,
                entity=request.summary,
                error_detail=answer.reason,
            ),
        )
        reason = answer.reason or "the clinician rejected the write"
        return GateVerdict(
            args,
            stopped={
                "tool_results": [rejected],
                "error_messages": [rejected["formatted_result"]],
                "clarification_request": declined(request.summary, answer.reason),
                "declined_write": declined_write(spec, args, turn, replacing),
                "trace": [
                    decision(
                        node,
                        "rejected",
                        reason,
                        title=f"{spec.label} rejected",
                        detail=request.summary,
                        status="error",
                    )
                ],
            },
        )
    if answer.action == "edit":
        args = {**args, **(answer.args or {})}
        check, parsed = validate_call(spec, args, evidence=None, has_image=False)
        if not check.ok:
            invalid = ToolOutcome(error_type=check.error_type, missing_fields=check.missing_fields)
            return GateVerdict(
                args,
                stopped={
                    "tool_results": [record(args, invalid)],
                    "trace": [decision(node, "invalid_edit", check.reason)],
                },
            )
        args |= check.tidied
        request = approval_request(spec, args, deps.thread_id, turn, replaces=replaced)
    context = {"approved_by": answer.approved_by, "idempotency_key": request.idempotency_key}
    return GateVerdict(
        args, parsed, {**context, "replaces": replacing["replaces"]} if replacing else context
    )

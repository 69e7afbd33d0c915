"""Running one tool call: under its deadline, and recorded in state as clinician-safe text.

Tools never raise into the graph: a timeout or a crash becomes a typed outcome, and
the raw detail is logged, never shown to a model — what later nodes see is the
formatted result, or the pre-formatted message of the one message table, under the
tool's clinical label.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from docgemma.agent.deps import AgentDeps
from docgemma.agent.rules import scrub_tool_names
from docgemma.agent.state import ToolResult
from docgemma.tools.base import ToolErrorType, ToolOutcome, ToolSpec
from docgemma.tools.outcomes import error_message

log = logging.getLogger(__name__)
_MAX_RESULT_CHARS = 2000
_CUT_MARK = "[further details omitted]"


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
    error = outcome.error_type
    entity = outcome.entity or next((str(v) for v in args.values() if isinstance(v, str)), None)
    if error:
        if outcome.error_detail:
            log.info("tool %s failed (%s): %s", spec.name, error, outcome.error_detail)
        # a tool's own message is pre-formatted and often says more than the template
        formatted = scrub_tool_names(outcome.formatted, labels) or error_message(
            error, spec.label, entity=entity, fields=outcome.missing_fields
        )
    elif outcome.formatted or outcome.data:
        text = outcome.formatted or json.dumps(outcome.data, default=str)
        if len(text) > _MAX_RESULT_CHARS:  # say so: a silent cut could hide a lab or a note
            text = text[:_MAX_RESULT_CHARS].rstrip() + " " + _CUT_MARK
        formatted = scrub_tool_names(text, labels)
    else:
        formatted = error_message(ToolErrorType.NOT_FOUND, spec.label, entity=entity)
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
        passages=(
            None
            if error or outcome.passages is None
            else [p.model_dump(mode="json") for p in outcome.passages]
        ),
        quality=None,
        retry=retry,
        executed=executed,
        unchecked=list(outcome.unchecked) if not error else [],
        not_consulted=list(outcome.not_consulted) if not error else [],
    )

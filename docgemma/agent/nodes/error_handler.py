"""Node ⑤a ERROR_HANDLER: code asks the user or skips; the model only picks a retry style.

After a call that found nothing, code alone decides: the same call would find nothing
again, so the arguments are re-extracted without asking the model how to retry.

After a skip the loop goes on to the other tools the question still asks for.

The model scored 0% on ask-user and skip decisions and 92% on retry_same versus
retry_different_args, so the handler is split exactly there.
It both updates state and chooses the next node, hence a ``Command``.
"""

from __future__ import annotations

import json
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from docgemma.agent import llm_calls
from docgemma.agent.context import known_patient_ids
from docgemma.agent.deps import AgentDeps
from docgemma.agent.prompts import RETRY_SYSTEM, RETRY_USER
from docgemma.agent.rules import decide_after_skip, decide_error, forced_retry
from docgemma.agent.schemas import RetryStrategy
from docgemma.agent.state import AgentState, ToolResult
from docgemma.agent.tracing import decision, traced
from docgemma.llm.repair import ModelFailure
from docgemma.llm.types import Message

_NODE = "error_handler"
_RETRY_WORDS = {
    "retry_same": "the same request again",
    "retry_different_args": "the request changed",
}


def retry_messages(state: AgentState, result: ToolResult) -> list[Message]:
    user = RETRY_USER.render(
        user_query=state["user_query"],
        tool_label=result["tool_label"],
        args=json.dumps(result["args"]),
        error_message=result["formatted_result"],
    )
    return [
        Message(role="system", content=RETRY_SYSTEM.render()),
        Message(role="user", content=user),
    ]


@traced(_NODE)
async def error_handler(
    state: AgentState, runtime: Runtime[AgentDeps]
) -> Command[Literal["tool_select", "tool_execute", "synthesize"]]:
    deps = runtime.context
    last = state["tool_results"][-1]
    tool = last["tool_name"]
    counts = dict(state.get("retry_counts") or {})
    total = state.get("total_retries", 0)
    verdict = decide_error(last, counts.get(tool, 0), total, registry=deps.registry)
    if verdict.action == "ask_user":
        return Command(
            goto="synthesize",
            update={
                "clarification_request": verdict.message,
                "trace": [
                    decision(_NODE, "ask_user", verdict.message, title="Need more information")
                ],
            },
        )
    if verdict.action == "skip":
        onward = decide_after_skip(
            state["tool_results"],
            [*state.get("skipped_tools", []), tool],
            step_count=state.get("step_count", 0),
            user_query=state["user_query"],
            patient_known=bool(known_patient_ids(state)),
            registry=deps.registry,
        )
        return Command(
            goto=onward.action,
            update={
                "error_messages": [verdict.message],
                "skipped_tools": [tool],
                "trace": [
                    decision(
                        _NODE,
                        "skip",
                        verdict.message,
                        title=f"Skipped the {last['tool_label']}",
                        status="error",
                    ),
                    decision(
                        _NODE,
                        onward.action,
                        onward.reason,
                        title="Going on without it" if onward.action == "tool_select" else "",
                    ),
                ],
            },
        )
    calls: list[str] = []
    chosen = forced_retry(last)
    reason = "the identical call already found nothing; the arguments must change"
    if chosen is None:
        try:
            strategy, calls = await llm_calls.structured(
                deps, _NODE, "retry", retry_messages(state, last), RetryStrategy
            )
        except ModelFailure as exc:
            return Command(
                goto="synthesize",
                update={
                    "fallback": True,
                    "llm_calls": exc.calls,
                    "error_messages": [last["formatted_result"]],
                    "trace": [decision(_NODE, "fallback", str(exc))],
                },
            )
        chosen, reason = strategy.strategy, strategy.reasoning or "chosen by the model"
    counts[tool] = counts.get(tool, 0) + 1
    update = {
        "retry_counts": counts,
        "total_retries": total + 1,
        "retrying": True,
        "llm_calls": calls,
        "current_tool": tool,
        "current_args": last["args"],
        "trace": [
            decision(
                _NODE,
                chosen,
                reason,
                title=f"Retrying the {last['tool_label']}",
                detail=_RETRY_WORDS[chosen],
            )
        ],
    }
    if chosen == "retry_same":
        return Command(goto="tool_execute", update=update)
    return Command(goto="tool_select", update={**update, "pending_stage2_only": True})

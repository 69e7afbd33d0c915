"""Suite 2 — tool selection: how the tool and its arguments are best asked for.

Strategies: the two-stage baseline (select, then extract arguments; full descriptions,
no examples); prefix completion (analytical, cognitive); 1/3/10 few-shot examples;
short and names-only descriptions; joint selection; reasoning before selecting; boolean
probing of every tool. Field order has its own suite (``experiments.suites.field_order``) and
the temperature sweep its own (``experiments.suites.temperature``). Few-shot examples come
from the other cases of the file; the first one shares the
case's expected tool (the design study matched it to the intent node's ``suggested_tool`` hint).

``arg_accuracy`` scores a wrong tool as 0 (end to end); ``arg_accuracy_given_tool``
scores arguments only on trials whose tool was right, so both stages can be read apart.
"""

from __future__ import annotations

import json
import math
from functools import partial
from typing import Any

from docgemma.llm.types import messages
from experiments import metrics, prompt_variants
from experiments.calls import Caller, CallRecord
from experiments.cases import ToolCase
from experiments.schemas import ToolSuitability, joint_schema
from experiments.trial import Context, Strategy, trial_row

SUITE = "tool_selection"
CASES = "tool_selection"
PRIMARY_METRICS = ("tool_exact", "tool_acceptable", "arg_accuracy", "arg_accuracy_given_tool")
SELECT_TOKENS_REASONING = 128
PREFIX_TOKENS = 24


def _examples(case: ToolCase, ctx: Context, k: int) -> list[ToolCase]:
    pool = [c for c in ctx.cases if c.id != case.id]
    matched = [c for c in pool if c.expected_tool == case.expected_tool][:1]
    seen = {case.expected_tool}
    others = []
    for c in pool:
        if c.expected_tool not in seen:
            seen.add(c.expected_tool)
            others.append(c)
    return (matched + others)[:k]


def _select_examples(examples: list[ToolCase]) -> str:
    return "".join(f'\nExample:\nUser: "{e.query}"\nTool: {e.expected_tool}\n' for e in examples)


def _args_examples(examples: list[ToolCase], tool: str) -> str:
    return "".join(
        f'\nExample:\nUser: "{e.query}"\nArguments: {json.dumps(e.expected_args)}\n'
        for e in examples
        if e.expected_tool == tool
    )


def _score(
    case: ToolCase,
    calls: list[CallRecord],
    tool: str | None,
    args: dict | None,
    *,
    selected: bool = True,
    **extra: Any,
) -> dict[str, Any]:
    """The trial's row; ``selected=False`` when the expected tool was supplied, not chosen.

    A supplied tool says nothing about selection, so the selection columns are left empty.
    """
    exact = tool == case.expected_tool
    given_tool = metrics.arg_value_accuracy(case.expected_args, args) if exact else math.nan
    return trial_row(
        calls,
        temperature=0.0,
        parsed={"tool_name": tool, "args": args},
        parse_ok=all(c.ok for c in calls) and tool is not None,
        predicted_tool=tool if selected else None,
        expected_tool=case.expected_tool,
        tool_supplied=not selected,
        tool_exact=exact if selected else None,
        tool_acceptable=metrics.tool_acceptable(tool, case.expected_tool, case.acceptable_tools)
        if selected
        else None,
        arg_accuracy=given_tool if exact else 0.0,
        arg_accuracy_given_tool=given_tool,
        **extra,
    )


async def _extract_args(
    case: ToolCase,
    caller: Caller,
    ctx: Context,
    tool: str,
    *,
    examples: list[ToolCase] = (),
) -> CallRecord:
    schema = ctx.registry[tool].args
    system = prompt_variants.TOOL_ARGS_SYSTEM.substitute(
        tool_name=tool,
        description=ctx.registry[tool].description,
        examples=_args_examples(list(examples), tool),
    )
    return await caller.structured(messages(("system", system), ("user", case.query)), schema)


async def two_stage(
    case: ToolCase,
    caller: Caller,
    ctx: Context,
    *,
    verbosity: str = "full",
    shots: int = 0,
) -> dict[str, Any]:
    examples = _examples(case, ctx, shots) if shots else []
    system = prompt_variants.TOOL_SELECT_SYSTEM.substitute(
        tool_list=ctx.registry.describe(verbosity), examples=_select_examples(examples)
    )
    first = await caller.structured(
        messages(("system", system), ("user", case.query)), ctx.registry.selection_model()
    )
    tool = first.parsed["tool_name"] if first.parsed else None
    if tool is None:
        return _score(case, [first], None, None)
    second = await _extract_args(case, caller, ctx, tool, examples=examples)
    return _score(case, [first, second], tool, second.parsed)


async def prefix_completion(
    case: ToolCase, caller: Caller, ctx: Context, *, prefix: str
) -> dict[str, Any]:
    system = prompt_variants.TOOL_SELECT_SYSTEM.substitute(
        tool_list=ctx.registry.describe("full"), examples=""
    )
    prompt = (
        caller.render(messages(("system", system), ("user", case.query)))
        + prompt_variants.PREFIXES[prefix]
    )
    # no stop sequence: models often write "…tool is:" and the name after a blank line, so
    # a stop at "\n\n" left ":" and scored every trial of the strategy as unparsable
    first = await caller.complete(prompt, temperature=0.0, max_tokens=PREFIX_TOKENS)
    tool = metrics.find_tool_name(first.response, ctx.registry.names)
    if tool is None:
        return _score(case, [first], None, None)
    second = await _extract_args(case, caller, ctx, tool)
    return _score(case, [first, second], tool, second.parsed)


async def joint(case: ToolCase, caller: Caller, ctx: Context) -> dict[str, Any]:
    system = prompt_variants.JOINT_SYSTEM.substitute(tool_list=ctx.registry.describe("full"))
    call = await caller.structured(
        messages(("system", system), ("user", case.query)), joint_schema(tuple(ctx.registry.names))
    )
    if call.parsed is None:
        return _score(case, [call], None, None)
    tool = call.parsed["tool_name"]
    args = {k: call.parsed.get(k) for k in ctx.registry[tool].args.model_fields}
    spurious = sum(
        v is not None for k, v in call.parsed.items() if k != "tool_name" and k not in args
    )
    return _score(case, [call], tool, args, spurious_args=spurious)


async def reasoning_then_select(case: ToolCase, caller: Caller, ctx: Context) -> dict[str, Any]:
    tool_list = ctx.registry.describe("full")
    reason = await caller.text(
        messages(
            ("system", prompt_variants.REASONING_SYSTEM.substitute(tool_list=tool_list)),
            ("user", case.query),
        ),
        temperature=0.0,
        max_tokens=SELECT_TOKENS_REASONING,
    )
    system = prompt_variants.TOOL_SELECT_SYSTEM.substitute(tool_list=tool_list, examples="")
    chosen = await caller.structured(
        messages(
            ("system", system),
            ("user", case.query),
            ("assistant", reason.response.strip() or "-"),
            ("user", "Now select the tool."),
        ),
        ctx.registry.selection_model(),
    )
    tool = chosen.parsed["tool_name"] if chosen.parsed else None
    if tool is None:
        return _score(case, [reason, chosen], None, None)
    args = await _extract_args(case, caller, ctx, tool)
    return _score(case, [reason, chosen, args], tool, args.parsed)


async def boolean_probing(case: ToolCase, caller: Caller, ctx: Context) -> dict[str, Any]:
    calls, suitable = [], []
    for spec in ctx.registry:
        system = prompt_variants.BOOLEAN_PROBE.substitute(
            tool_name=spec.name, description=spec.description
        )
        call = await caller.structured(
            messages(("system", system), ("user", case.query)), ToolSuitability
        )
        calls.append(call)
        if call.parsed and call.parsed["suitable"]:
            suitable.append(spec.name)
    tool = suitable[0] if suitable else None
    row = _score(case, calls, tool, None, tools_marked_suitable=len(suitable))
    row["arg_accuracy"] = row["arg_accuracy_given_tool"] = math.nan
    row["parse_ok"] = all(c.ok for c in calls)
    return row


def stratum(case: ToolCase) -> str:
    return case.expected_tool


_BASELINE_PROMPT = {"shots": 0, "description_style": "full"}
"""The prompt settings of the strategies that vary something other than examples or descriptions."""

STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in [
        Strategy(
            "baseline",
            "two-stage, full descriptions, no examples",
            two_stage,
            params=_BASELINE_PROMPT,
            sweep="shots",
        ),
        Strategy(
            "prefix_analytical",
            "baseline with the analytical prefix completed as free text",
            partial(prefix_completion, prefix="analytical"),
            params=_BASELINE_PROMPT,
        ),
        Strategy(
            "prefix_cognitive",
            "baseline with the cognitive prefix completed as free text",
            partial(prefix_completion, prefix="cognitive"),
            params=_BASELINE_PROMPT,
        ),
        Strategy(
            "few_shot_1",
            "baseline + 1 example matched to the expected tool",
            partial(two_stage, shots=1),
            params={"shots": 1, "description_style": "full"},
            sweep="shots",
        ),
        *[
            Strategy(
                f"few_shot_{k}",
                f"baseline + {k} examples (1 matched)",
                partial(two_stage, shots=k),
                params={"shots": k, "description_style": "full"},
                sweep="shots",
            )
            for k in (3, 10)
        ],
        Strategy(
            "desc_short",
            "short descriptions with argument hints",
            partial(two_stage, verbosity="short"),
            params={"shots": 0, "description_style": "short"},
        ),
        Strategy(
            "desc_names",
            "tool names only",
            partial(two_stage, verbosity="names"),
            params={"shots": 0, "description_style": "names"},
        ),
        Strategy(
            "joint",
            "one schema: tool name and every tool's arguments as nullable fields",
            joint,
            params=_BASELINE_PROMPT,
        ),
        Strategy(
            "reasoning_then_select",
            "free-text reasoning, then constrained selection",
            reasoning_then_select,
            params=_BASELINE_PROMPT,
        ),
        Strategy(
            "boolean_probing",
            "one yes/no call per tool; the first tool judged suitable wins",
            boolean_probing,
            params=_BASELINE_PROMPT,
        ),
    ]
}

"""Suite — argument field order: critical fields first or last.

Stage 2 alone, for the case's expected tool, so a wrong tool choice cannot mask the
effect. Only tools with several argument fields take part: for a one-field schema
"reversed" is the same schema, and such a case would dilute the comparison, so giving
one to these strategies is an error. Both variants make every property required
(optional ones nullable), because grammar converters emit required properties first;
a trial whose emitted key order still differs from the declared one is invalid and
is left out of the scores, with the count in the report.
"""

from __future__ import annotations

import math
from functools import partial

import pandas as pd

from docgemma.llm.types import messages
from docgemma.tools.registry import build_registry
from experiments import metrics, prompt_variants
from experiments.calls import Caller
from experiments.cases import ToolCase
from experiments.schemas import FieldOrder, ordered_schema, reorders
from experiments.trial import Context, Strategy, trial_row

SUITE = "field_order"
CASES = "field_order"
PRIMARY_METRICS = ("arg_accuracy_given_tool", "critical_accuracy")


def takes_part(case: ToolCase) -> bool:
    return reorders(build_registry()[case.expected_tool].args)


async def extract(case: ToolCase, caller: Caller, ctx: Context, *, order: FieldOrder) -> dict:
    declared = ctx.registry[case.expected_tool].args
    if not reorders(declared):
        raise ValueError(
            f"{case.id}: {case.expected_tool} has one argument field, so both field orders "
            "are the same schema; field-order strategies only take multi-field tools"
        )
    system = prompt_variants.TOOL_ARGS_SYSTEM.substitute(
        tool_name=case.expected_tool,
        description=ctx.registry[case.expected_tool].description,
        examples="",
    )
    call = await caller.structured(
        messages(("system", system), ("user", case.query)), ordered_schema(declared, order)
    )
    row = trial_row([call], temperature=0.0, parsed=call.parsed, parse_ok=call.ok)
    valid = row["key_order_honoured"] is not False
    required = [n for n, info in declared.model_fields.items() if info.is_required()]
    critical = {k: v for k, v in case.expected_args.items() if k in required}
    return {
        **row,
        "expected_tool": case.expected_tool,
        "order_kept": valid,
        "arg_accuracy_given_tool": metrics.arg_value_accuracy(case.expected_args, call.parsed)
        if valid
        else math.nan,
        "critical_accuracy": metrics.arg_value_accuracy(critical, call.parsed)
        if valid
        else math.nan,
    }


def stratum(case: ToolCase) -> str:
    return case.expected_tool


def report_sections(frame: pd.DataFrame) -> list[str]:
    """How many trials compared different schemas, and how many were invalid."""
    if frame.empty:
        return []
    lines = [
        "\n## Field order: what was compared\n",
        f"All {len(frame)} trials used tools with several argument fields, so each "
        "critical-last schema differs from its critical-first twin "
        f"({frame['case_id'].nunique()} cases over "
        f"{frame['expected_tool'].nunique()} tools; every property required).\n",
    ]
    broken = frame[~frame["order_kept"].astype(bool)]
    if len(broken):
        counts = broken.groupby("strategy").size()
        listed = ", ".join(f"{name}: {n}" for name, n in counts.items())
        lines.append(
            f"\n> **INVALID trials — key order not kept** ({listed}). Their scores are "
            "left out: the backend did not emit the declared order.\n"
        )
    else:
        lines.append("\nEvery trial emitted its keys in the declared order.\n")
    return lines


STRATEGIES: dict[str, Strategy] = {
    order.value: Strategy(
        order.value,
        f"arguments only, for the expected tool; {order.value.replace('_', '-')} order, "
        "every property required",
        partial(extract, order=order),
        params={"field_order": order.value},
        sweep=None,
        applies=takes_part,
    )
    for order in FieldOrder
}

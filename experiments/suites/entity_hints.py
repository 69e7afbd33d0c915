"""Suite — entity-hint injection: argument extraction with and without code's entities.

The agent's stage-2 prompt carries the patient ids and drug names that code found in the
message ("Detected drug names: warfarin, aspirin"). This suite measures what that line is
worth: the expected tool is supplied (selection cannot mask the effect) and the agent's own
argument prompt is built for the same message twice, once with the hints and once without.
The cases are every tool case of the tool-selection and field-order files whose tool takes
arguments, each message once. ``hinted`` says whether code found anything in the message:
on a message without entities both prompts are the same.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pandas as pd

from docgemma.agent.entities import drug_dictionary, patient_ids
from docgemma.agent.nodes.tool_select import argument_messages
from experiments import metrics
from experiments.calls import Caller
from experiments.cases import ToolCase, load_cases
from experiments.trial import Context, RunConfig, Strategy, trial_row

SUITE = "entity_hints"
PRIMARY_METRICS = ("arg_accuracy_given_tool", "critical_accuracy")


def load(config: RunConfig) -> list[ToolCase]:
    seen: set[str] = set()
    cases = []
    for name in ("tool_selection", "field_order"):
        for case in load_cases(name, config.data_dir):
            if case.expected_args and case.query not in seen:
                seen.add(case.query)
                cases.append(case)
    return cases


def entities(query: str) -> dict[str, Any]:
    """What the agent's input step finds in a message, by the same functions."""
    return {"patient_ids": patient_ids(query), "drug_mentions": drug_dictionary().find(query)}


async def extract(case: ToolCase, caller: Caller, ctx: Context, *, hints: bool) -> dict:
    found = entities(case.query)
    state: dict[str, Any] = {
        "user_query": case.query,
        "extracted_entities": found if hints else {},
        "tool_results": [],
    }
    declared = ctx.registry[case.expected_tool].args
    call = await caller.structured(
        argument_messages(state, ctx.registry, case.expected_tool), declared
    )
    required = [n for n, info in declared.model_fields.items() if info.is_required()]
    critical = {k: v for k, v in case.expected_args.items() if k in required}
    return trial_row(
        [call],
        temperature=0.0,
        parsed=call.parsed,
        parse_ok=call.ok,
        expected_tool=case.expected_tool,
        hints=hints,
        hinted=bool(found["patient_ids"] or found["drug_mentions"]),
        arg_accuracy_given_tool=metrics.arg_value_accuracy(case.expected_args, call.parsed),
        critical_accuracy=metrics.arg_value_accuracy(critical, call.parsed),
    )


def stratum(case: ToolCase) -> str:
    return case.expected_tool


def report_sections(frame: pd.DataFrame) -> list[str]:
    """The comparison on the messages where code found entities (elsewhere both prompts are
    the same, so those trials only dilute the difference)."""
    if frame.empty or "hinted" not in frame:
        return []
    hinted = frame[frame["hinted"].astype(bool)]
    lines = [
        "\n## Where code found entities\n",
        f"{hinted['case_id'].nunique()} of {frame['case_id'].nunique()} messages name a "
        "patient id or a known drug.\n",
        "\n| Strategy | Arguments right (given the tool) | Critical arguments right | n |",
        "\n|---|---|---|---|",
    ]
    for strategy, rows in hinted.groupby("strategy"):
        lines.append(
            f"\n| {strategy} | {rows['arg_accuracy_given_tool'].mean():.2f} "
            f"| {rows['critical_accuracy'].mean():.2f} | {len(rows)} |"
        )
    return [*lines, "\n"]


STRATEGIES: dict[str, Strategy] = {
    f"hints_{'on' if hints else 'off'}": Strategy(
        f"hints_{'on' if hints else 'off'}",
        "the agent's argument prompt, expected tool supplied, "
        + ("with" if hints else "without")
        + " the patient ids and drug names code found",
        partial(extract, hints=hints),
    )
    for hints in (True, False)
}

"""Suite — temperature for the operational decisions.

The design studies ran tool selection and intent classification at T=0.0 and reports that
higher temperatures cost accuracy and valid JSON. Each case is answered several
times at each temperature; a row reports the share of samples that were right, the
agreement between samples (the share that gave the most common answer), and the
samples whose output could not be parsed. Constrained decoding should keep that last
number at zero; agreement is what temperature changes first.
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any

from docgemma.agent.schemas import IntentClassification
from docgemma.llm.types import messages
from experiments import prompt_variants
from experiments.calls import Caller
from experiments.cases import IntentCase, ToolCase, load_cases
from experiments.trial import Context, RunConfig, Strategy, trial_row

SUITE = "temperature"
SAMPLES = 5
TEMPERATURES = (0.0, 0.3, 0.6, 1.0)
PRIMARY_METRICS = (
    "tool_accuracy",
    "tool_agreement",
    "intent_accuracy",
    "intent_agreement",
    "parse_failure_rate",
)
CURVES = {"temperature": list(PRIMARY_METRICS)}
"""Metrics plotted against temperature (each row carries only its own task's columns)."""


def load(config: RunConfig) -> list[Any]:
    return [*load_cases("tool_selection", config.data_dir), *load_cases("intent", config.data_dir)]


def agreement(answers: list[str | None]) -> float:
    """The share of samples that gave the most common answer (1.0: all the same)."""
    return Counter(answers).most_common(1)[0][1] / len(answers)


async def _ask(case: Any, caller: Caller, ctx: Context, temperature: float):
    if isinstance(case, ToolCase):
        system = prompt_variants.TOOL_SELECT_SYSTEM.substitute(
            tool_list=ctx.registry.describe("full"), examples=""
        )
        call = await caller.structured(
            messages(("system", system), ("user", case.query)),
            ctx.registry.selection_model(),
            temperature=temperature,
        )
        return call, (call.parsed or {}).get("tool_name")
    call = await caller.structured(
        messages(("system", prompt_variants.INTENT_SYSTEM.render()), ("user", case.query)),
        IntentClassification,
        temperature=temperature,
    )
    return call, (call.parsed or {}).get("intent")


async def sample(case: Any, caller: Caller, ctx: Context, *, temperature: float) -> dict:
    task = "tool" if isinstance(case, ToolCase) else "intent"
    expected = case.expected_tool if task == "tool" else case.expected_intent
    calls, answers = [], []
    for _ in range(ctx.config.samples or SAMPLES):
        call, answer = await _ask(case, caller, ctx, temperature)
        calls.append(call)
        answers.append(answer)
    row = trial_row(
        calls,
        temperature=temperature,
        parsed=answers,
        parse_ok=all(a is not None for a in answers),
        task=task,
        expected=expected,
        modal_answer=Counter(answers).most_common(1)[0][0],
        parse_failure_rate=sum(a is None for a in answers) / len(answers),
        samples=len(answers),
    )
    row[f"{task}_accuracy"] = sum(a == expected for a in answers) / len(answers)
    row[f"{task}_agreement"] = agreement(answers)
    return row


def stratum(case: Any) -> str:
    return case.expected_tool if isinstance(case, ToolCase) else case.expected_intent


STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for task, kind in (("tool", ToolCase), ("intent", IntentCase))
    for s in [
        Strategy(
            f"{task}_t{t}",
            f"{task} decision, {SAMPLES} samples per case (or the run's) at T={t}",
            partial(sample, temperature=t),
            params={"temperature": t},
            sweep="temperature",
            applies=lambda case, kind=kind: isinstance(case, kind),
        )
        for t in TEMPERATURES
    ]
}

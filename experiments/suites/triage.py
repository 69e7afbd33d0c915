"""Suite — patient triage severity (on the project's own vignettes).

Every vignette (``data/triage/vignettes.jsonl``, written for this project) runs
through the whole triage graph — routing, retrieval over the knowledge base,
reasoning, the constrained prediction and the red-flag rules — under four
strategies: budget forcing off, and forcing on with 0, 1 or 2 suppressed ends of
thinking ("Wait" appended each time). Severity accuracy is measured on the final
answer and on the model's own prediction; under-triage (less urgent than expected,
the dangerous error) is reported apart; red-flag vignettes must all end in A&E.
The literature fallback is off here: it does not change severity and its index
takes minutes to build.

Each strategy also runs with the full triage context (``full_`` prefix,
``DOCGEMMA_TRIAGE_CONTEXT=full`` in the app): the reasoning reads the conversation and
the pages most serious first with their similarity, and the reply is written from the
analysis. ``--strategies min_wait_1 full_min_wait_1`` compares the two contexts under the
app's default forcing.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel

from docgemma.kb.assisted import AssistedSearch
from docgemma.kb.store import get_knowledge_base
from docgemma.llm.thinking import ThinkingConfig
from docgemma.severity import Severity
from docgemma.triage.demographics import AgeBand, Demographics, Sex
from docgemma.triage.service import TriageService
from experiments.calls import Caller, CallRecord
from experiments.cases import load_jsonl
from experiments.report import markdown_table
from experiments.suites.thinking import family_for
from experiments.trial import Context, RunConfig, Strategy, run_settings, trial_row

SUITE = "triage"
VIGNETTES = Path(__file__).resolve().parents[2] / "data" / "triage" / "vignettes.jsonl"
PRIMARY_METRICS = (
    "correct",
    "under_triage",
    "model_correct",
    "model_under_triage",
    "red_flag_a_and_e",
)
THINKING_TOKENS = 256
CONTEXTS = ("compact", "full")


class Vignette(BaseModel):
    id: str
    text: str
    expected: Severity
    red_flag: bool = False
    """A deterministic rule must fire on this text (with these details)."""
    age_band: AgeBand | None = None
    sex: Sex | None = None
    pregnant: bool = False

    @property
    def demographics(self) -> Demographics:
        return Demographics(age_band=self.age_band, sex=self.sex, pregnant=self.pregnant)


def load(config: RunConfig) -> list[Vignette]:
    path = (config.data_dir / VIGNETTES.name) if config.data_dir else VIGNETTES
    return load_jsonl(path, Vignette)


def stratum(case: Vignette) -> str:
    return case.expected.value


async def prepare(ctx: Context, caller: Caller) -> None:
    settings = run_settings(ctx.config)
    kb = get_knowledge_base(settings)
    ctx.extras["services"] = {
        context: TriageService.create(
            settings.model_copy(update={"triage_context": context}),
            caller.backend,
            AssistedSearch(kb),
        )
        for context in CONTEXTS
    }
    family = ctx.config.thinking_family or family_for(caller.backend.model)
    ctx.extras["family"] = family
    ctx.extras.setdefault("report", {}).update(
        {"thinking_family": family, "kb_pages": len(kb.pages), "literature_fallback": False}
    )


def _under(found: Severity | None, expected: Severity) -> bool:
    return found is None or found.rank < expected.rank


async def triage_trial(
    case: Vignette, caller: Caller, ctx: Context, *, waits: int | None, context: str = "compact"
) -> dict[str, Any]:
    service: TriageService = ctx.extras["services"][context]
    thinking = (
        None
        if waits is None
        else ThinkingConfig(
            family=ctx.extras["family"],
            max_tokens=caller.cap(THINKING_TOKENS),
            num_ignore=waits,
            answer_max_tokens=caller.cap(64),
        )
    )

    answer, latency = await caller.run_exclusive(
        service.ask(
            f"{case.id}-{waits}-{context}",
            case.text,
            demographics=case.demographics,
            thinking=thinking,
        )
    )
    call = CallRecord(
        prompt=case.text,
        response=answer.answer,
        error="model unavailable" if answer.fallback else None,
        latency_s=latency,
    )
    model = answer.predicted_severity
    return trial_row(
        [call],
        temperature=0.0,
        parsed={"condition": answer.condition, "severity": answer.severity},
        parse_ok=model is not None,
        expected=case.expected.value,
        predicted=answer.severity.value if answer.severity else None,
        model_predicted=model.value if model else None,
        condition=answer.condition,
        sources=[s.id for s in answer.sources],
        route=answer.route,
        red_flag_case=case.red_flag,
        rules_fired=answer.red_flags,
        correct=answer.severity is case.expected,
        under_triage=_under(answer.severity, case.expected),
        model_correct=model is case.expected,
        model_under_triage=_under(model, case.expected),
        red_flag_a_and_e=(answer.severity is Severity.A_AND_E)
        if case.red_flag and case.expected is Severity.A_AND_E
        else None,
        llm_calls=len(answer.llm_calls),
        reasoning=answer.reasoning,
        context=context,
    )


def _strategies(context: str) -> list[Strategy]:
    prefix = "" if context == "compact" else f"{context}_"
    reads = (
        ""
        if context == "compact"
        else "; full context: conversation, pages most serious first with similarity, "
        "reply from the analysis"
    )
    return [
        Strategy(
            f"{prefix}forcing_off",
            "no reasoning step: the prediction is made straight from the pages" + reads,
            partial(triage_trial, waits=None, context=context),
        ),
        *[
            Strategy(
                f"{prefix}min_wait_{k}",
                f"budget-forced reasoning, end of thinking suppressed {k}x with 'Wait' "
                f"(budget {THINKING_TOKENS})" + reads,
                partial(triage_trial, waits=k, context=context),
                params={"min_wait": k, "thinking_budget": THINKING_TOKENS},
                sweep="min_wait" if context == "compact" else None,
            )
            for k in (0, 1, 2)
        ],
    ]


STRATEGIES: dict[str, Strategy] = {s.name: s for c in CONTEXTS for s in _strategies(c)}


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Accuracy, under-triage and the red-flag rate per strategy, final and model-only."""
    red = frame[frame["red_flag_a_and_e"].notna()].astype({"red_flag_a_and_e": bool})
    by = frame.astype({c: bool for c in _RATES}).groupby("strategy", sort=False)
    table = pd.DataFrame({"n": by.size(), **{c: by[c].mean() for c in _RATES}})
    table["red_flag_a_and_e"] = red.groupby("strategy", sort=False)["red_flag_a_and_e"].mean()
    return table.reset_index(names="strategy")


_RATES = ("correct", "under_triage", "model_correct", "model_under_triage")


def report_sections(frame: pd.DataFrame) -> list[str]:
    """The severity table: the final answer beside the model alone, per strategy."""
    return [
        "\n## Severity per strategy (final answer and model alone)\n",
        markdown_table(summary(frame)),
    ]

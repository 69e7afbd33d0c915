"""Suite 4 — synthesis: the clinician-facing answer.

Strategies: temperature 0.1/0.3/0.5/0.7; prompt brief / comprehensive / structured;
with and without the reasoning context (``task_summary``); max tokens 128/256/512;
raw versus pre-formatted error messages (on the error cases); the system prompt's framing
(no identity, the clinical identity, "think carefully"); a cold start against one earlier
exchange of the same conversation (the previous case's question and its result). Metrics are
deterministic (key facts, internal terms, words, empty output); an optional
LLM-as-judge score from ``--judge-backend`` is stored apart in ``llm_judge_score``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from docgemma.llm.types import messages
from experiments import metrics, prompt_variants
from experiments.calls import Caller
from experiments.cases import SynthesisCase
from experiments.schemas import JudgeScore
from experiments.trial import Context, Strategy, make_backend, trial_row

SUITE = "synthesis"
CASES = "synthesis"
PRIMARY_METRICS = ("key_fact_rate", "source_clean", "empty_output")


def _user_message(case: SynthesisCase, *, context: bool, error_style: str | None) -> str:
    context_section = f"\nClinical context: {case.task_summary}\n" if context else ""
    if case.is_error:
        error = case.raw_error if error_style == "raw" else case.formatted_error
        result_section = f"\nNote: {error}"
    else:
        result_section = f"\n[{case.tool_label}]\n{case.result}"
    return prompt_variants.SYNTHESIS_USER.substitute(
        query=case.query, context_section=context_section, result_section=result_section
    )


async def synthesize(
    case: SynthesisCase,
    caller: Caller,
    ctx: Context,
    *,
    temperature: float = 0.5,
    variant: str = "brief",
    context: bool = True,
    max_tokens: int = 256,
    error_style: str | None = None,
    framing: str | None = None,
    prior_exchange: bool = False,
) -> dict[str, Any]:
    user = _user_message(case, context=context, error_style=error_style)
    system = (
        prompt_variants.FRAMINGS[framing]
        if framing is not None
        else prompt_variants.SYNTHESIS_SYSTEMS[variant]
    )
    earlier = _earlier_exchange(case, ctx) if prior_exchange else ()
    call = await caller.text(
        messages(("system", system), *earlier, ("user", user)),
        temperature=temperature,
        max_tokens=max_tokens,
    )
    answer = call.response.strip()
    leaked = metrics.leaked_terms(answer, ctx.extras["internal_terms"])
    row = trial_row(
        [call],
        temperature=temperature,
        parsed={"answer": answer},
        parse_ok=call.ok,
        key_fact_rate=metrics.key_fact_rate(answer, case.key_facts),
        source_clean=not leaked,
        leaked_terms=",".join(leaked) or None,
        word_count=metrics.word_count(answer),
        empty_output=metrics.is_empty(answer),
        max_tokens=caller.cap(max_tokens),
        variant=framing or variant,
        with_context=context,
        prior_exchange=prior_exchange,
        error_acknowledged=metrics.error_acknowledged(answer) if case.is_error else None,
        raw_error_leaked=metrics.raw_error_leaked(answer, case.raw_error)
        if case.is_error
        else None,
    )
    judge: Caller | None = ctx.extras.get("judge")
    if judge is not None:
        evidence = case.result or case.formatted_error or ""
        verdict = await judge.structured(
            messages(
                (
                    "user",
                    prompt_variants.JUDGE.substitute(
                        query=case.query, evidence=evidence, answer=answer
                    ),
                )
            ),
            JudgeScore,
        )
        row["llm_judge_score"] = verdict.parsed["score"] if verdict.parsed else None
        row["llm_judge_model"] = judge.backend.model
    return row


def _earlier_exchange(case: SynthesisCase, ctx: Context) -> tuple[tuple[str, str], ...]:
    """One earlier turn of the conversation: the previous case's question, answered with
    that case's own tool result (the file's last case before the first)."""
    cases = [c for c in ctx.cases if not c.is_error]
    before = cases[cases.index(case) - 1] if case in cases else cases[-1]
    return (("user", before.query), ("assistant", (before.result or "Noted.")[:400]))


async def prepare(ctx: Context, caller: Caller) -> None:
    ctx.extras["internal_terms"] = (*metrics.INTERNAL_TERMS, *ctx.registry.names)
    if ctx.config.judge_backend:
        if ctx.config.judge_backend == ctx.config.backend:
            judge_backend = caller.backend  # one loaded model judges its own answers
        else:
            judge_backend = make_backend(
                ctx.config.model_copy(update={"backend": ctx.config.judge_backend})
            )
            ctx.extras["close"] = [judge_backend]
        ctx.extras["judge"] = Caller(judge_backend, concurrency=ctx.config.concurrency)
        ctx.extras.setdefault("report", {})["llm_judge"] = (
            f"{judge_backend.name}:{judge_backend.model}"
        )


def _answer_case(case: SynthesisCase) -> bool:
    return not case.is_error


def stratum(case: SynthesisCase) -> str:
    return case.tool_label


_CURVE = ["key_fact_rate", "source_clean", "empty_output"]
CURVES = {"temperature": _CURVE, "max_tokens": [*_CURVE, "word_count"]}
"""Metrics plotted against each swept parameter."""


STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in [
        *[
            Strategy(
                f"temperature_{t}",
                f"brief prompt, context, 256 tokens, T={t}",
                partial(synthesize, temperature=t),
                params={"temperature": t},
                sweep="temperature",
                applies=_answer_case,
            )
            for t in (0.1, 0.3, 0.5, 0.7)
        ],
        *[
            Strategy(
                f"prompt_{v}",
                f"{v} system prompt, T=0.5",
                partial(synthesize, variant=v),
                params={"temperature": 0.5},
                applies=_answer_case,
            )
            for v in ("brief", "comprehensive", "structured")
        ],
        Strategy(
            "context_with",
            "task summary included as reasoning context",
            partial(synthesize, context=True),
            params={"temperature": 0.5},
            applies=_answer_case,
        ),
        Strategy(
            "context_without",
            "no task summary",
            partial(synthesize, context=False),
            params={"temperature": 0.5},
            applies=_answer_case,
        ),
        *[
            Strategy(
                f"max_tokens_{m}",
                f"brief prompt, T=0.5, max_tokens={m}",
                partial(synthesize, max_tokens=m),
                params={"temperature": 0.5, "max_tokens": m},
                sweep="max_tokens",
                applies=_answer_case,
            )
            for m in (128, 256, 512)
        ],
        *[
            Strategy(
                f"framing_{f}",
                f"system prompt framing: {f.replace('_', ' ')}; T=0.5",
                partial(synthesize, framing=f),
                params={"temperature": 0.5},
                applies=_answer_case,
            )
            for f in ("none", "clinical", "think_carefully")
        ],
        Strategy(
            "history_cold",
            "brief prompt, T=0.5, the question alone",
            synthesize,
            params={"temperature": 0.5},
            applies=_answer_case,
        ),
        Strategy(
            "history_prior",
            "brief prompt, T=0.5, after one earlier exchange of the conversation",
            partial(synthesize, prior_exchange=True),
            params={"temperature": 0.5},
            applies=_answer_case,
        ),
        Strategy(
            "errors_raw",
            "the raw error text reaches the model",
            partial(synthesize, error_style="raw"),
            params={"temperature": 0.5},
            applies=lambda c: c.is_error,
        ),
        Strategy(
            "errors_formatted",
            "the pre-formatted clinician message reaches the model",
            partial(synthesize, error_style="formatted"),
            params={"temperature": 0.5},
            applies=lambda c: c.is_error,
        ),
    ]
}

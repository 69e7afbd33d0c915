"""The design studies' MedGemma 1.5 4B figures, reported beside ours (docs/design.md).

They come from upstream experiments with 10–20 trials per strategy; "Part II" and
the like in the comments below point into that upstream study. A figure is attached to
the strategy of ours that reproduces the same comparison. Judge scores are on the
upstream 1–10 Gemini scale and are compared only with an LLM-as-judge column.
"""

from __future__ import annotations

from typing import NamedTuple


class SeedFigure(NamedTuple):
    suite: str
    strategy: str
    metric: str
    value: float
    evidence: str
    note: str = ""


SEED_FIGURES: tuple[SeedFigure, ...] = (
    # thinking (Part I, Part IV). The study's 13% comes from thinking prefixes on the
    # synthesis prompt; our thinking suite asks plain questions, so it is the nearest
    # comparison, not the same one.
    SeedFigure(
        "thinking",
        "thinking_on",
        "empty_visible",
        0.13,
        "Part IV §42",
        "measured on synthesis answers with a thinking prefix, not on this suite's plain "
        "questions: 13% had no visible output",
    ),
    SeedFigure(
        "thinking",
        "thinking_off",
        "empty_visible",
        0.0,
        "Part IV §42",
        "synthesis answers without a thinking prefix",
    ),
    # tool selection (Part II)
    SeedFigure(
        "tool_selection",
        "baseline",
        "tool_exact",
        0.95,
        "Part II §16",
        "full_desc descriptions (two-stage alone: 90%, §17)",
    ),
    SeedFigure(
        "tool_selection",
        "baseline",
        "tool_acceptable",
        1.0,
        "Part II §16",
        "full_desc descriptions",
    ),
    SeedFigure(
        "tool_selection", "baseline", "arg_accuracy", 0.94, "Part II §16", "full_desc descriptions"
    ),
    SeedFigure(
        "tool_selection",
        "desc_short",
        "tool_exact",
        0.80,
        "Part II §16",
        "short_desc; below names-only",
    ),
    SeedFigure(
        "tool_selection",
        "prefix_analytical",
        "tool_exact",
        0.85,
        "seed §4 node ③",
        "'+5% for free' over an 80% baseline",
    ),
    SeedFigure(
        "tool_selection",
        "few_shot_1",
        "arg_accuracy",
        0.91,
        "Part II §19",
        "1-shot matched: sweet spot",
    ),
    SeedFigure("tool_selection", "joint", "tool_exact", 0.80, "Part II §17", "joint schema"),
    SeedFigure(
        "field_order",
        "critical_first",
        "arg_accuracy_given_tool",
        0.88,
        "Part II §20",
        "argument extraction, critical fields first",
    ),
    SeedFigure(
        "field_order",
        "critical_last",
        "arg_accuracy_given_tool",
        0.21,
        "Part II §20",
        "argument extraction, fields reversed: null cascade",
    ),
    SeedFigure(
        "tool_selection",
        "reasoning_then_select",
        "tool_exact",
        0.55,
        "Part II §22",
        "vs 80% baseline",
    ),
    SeedFigure(
        "tool_selection",
        "boolean_probing",
        "tool_exact",
        0.25,
        "Part II §21",
        "6.5 of 10 tools judged suitable per query",
    ),
    # routing (Part III)
    SeedFigure(
        "routing", "result_quality", "correct", 0.941, "Part III §29", "five quality classes"
    ),
    SeedFigure(
        "routing", "next_action_t0.0", "correct", 0.50, "Part III §30", "next-action routing"
    ),
    SeedFigure(
        "routing", "full_plan", "correct", 0.10, "Part III §31", "0–10%: slot-filling pathology"
    ),
    SeedFigure("routing", "reactive", "step_accuracy", 0.63, "Part III §32", "per step"),
    SeedFigure(
        "routing",
        "sufficiency",
        "correct_on_sufficient",
        0.0,
        "Part III §34",
        "always 'insufficient'",
    ),
    SeedFigure(
        "routing",
        "error_recovery",
        "correct_on_retry",
        0.92,
        "Part III §35",
        "retry same vs different",
    ),
    SeedFigure(
        "routing", "error_recovery", "correct_on_ask_user", 0.0, "Part III §30", "never defers"
    ),
    SeedFigure("routing", "error_recovery", "correct_on_skip", 0.0, "Part III §35", "never skips"),
    # synthesis (Part IV)
    SeedFigure(
        "synthesis",
        "temperature_0.5",
        "key_fact_rate",
        0.90,
        "Part IV §43",
        "peak; 80–87% at other T",
    ),
    SeedFigure(
        "synthesis", "context_with", "key_fact_rate", 1.0, "Part IV §45", "with reasoning context"
    ),
    SeedFigure("synthesis", "context_with", "source_clean", 1.0, "Part IV §45", "0% source leak"),
    SeedFigure(
        "synthesis", "prompt_structured", "source_clean", 0.60, "Part IV §44", "40% source leakage"
    ),
    SeedFigure(
        "synthesis", "prompt_brief", "llm_judge_score", 9.3, "Part IV §50", "Gemini overall /10"
    ),
    SeedFigure(
        "synthesis",
        "prompt_comprehensive",
        "llm_judge_score",
        8.9,
        "Part IV §50",
        "Gemini overall /10 (default prompt)",
    ),
    SeedFigure(
        "synthesis",
        "prompt_structured",
        "llm_judge_score",
        8.3,
        "Part IV §44",
        "Gemini overall /10",
    ),
    SeedFigure(
        "synthesis", "max_tokens_256", "llm_judge_score", 9.7, "Part IV §46", "Gemini overall /10"
    ),
    SeedFigure(
        "synthesis", "max_tokens_512", "llm_judge_score", 9.4, "Part IV §46", "Gemini overall /10"
    ),
    SeedFigure("synthesis", "errors_raw", "llm_judge_score", 4.8, "Part IV §48", "Gemini /10"),
    SeedFigure(
        "synthesis", "errors_formatted", "llm_judge_score", 10.0, "Part IV §48", "Gemini /10"
    ),
)


def seed_figure(suite: str, strategy: str, metric: str) -> SeedFigure | None:
    for figure in SEED_FIGURES:
        if (figure.suite, figure.strategy, figure.metric) == (suite, strategy, metric):
            return figure
    return None


def seed_metrics(suite: str, strategy: str) -> list[str]:
    """Metrics the design studies report for a strategy, in table order."""
    return [f.metric for f in SEED_FIGURES if (f.suite, f.strategy) == (suite, strategy)]

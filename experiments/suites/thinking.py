"""Suite 1 — thinking and budget forcing (s1-style budget forcing).

Strategies: thinking off (plain answer); thinking on (open the thinking delimiter and
let the model close it); a minimum budget made of 0/1/2/4 suppressed ends of thinking
("Wait" appended each time); a maximum budget of 256/512/1024 tokens; and thinking at
temperature 0.0/0.3/0.6/1.0. The forcing itself is ``docgemma.llm.thinking``; the
delimiters follow the model family (MedGemma, Qwen/s1, generic ``<think>``).
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from docgemma.llm.thinking import DELIMITERS, ThinkingConfig, think_then_answer
from docgemma.llm.types import messages
from experiments import metrics, prompt_variants
from experiments.calls import Caller, CallRecord
from experiments.cases import ThinkingCase
from experiments.trial import Context, Strategy, trial_row

SUITE = "thinking"
CASES = "thinking"
PRIMARY_METRICS = (
    "thinking_triggered",
    "close_emitted",
    "empty_visible",
    "reasoning_leaked",
    "key_fact_rate",
)
ANSWER_TOKENS = 256
DEFAULT_THINKING_TOKENS = 512
WAIT_BUDGET = 1024


def family_for(model: str) -> str:
    """Delimiter family from the model id: MedGemma and Qwen have their own, others use <think>."""
    lowered = model.lower()
    if "medgemma" in lowered:
        return "medgemma"
    if "qwen" in lowered or "s1" in lowered.split("/")[-1].split("-"):
        return "qwen"
    return "generic"


def _messages(case: ThinkingCase):
    return messages(("system", prompt_variants.THINKING_SYSTEM), ("user", case.query))


def _visible(text: str, family: str) -> tuple[str, bool]:
    """The answer with any spontaneous thinking span removed, and whether one was opened."""
    delims = DELIMITERS[family]
    opened = delims.open in text
    if opened:
        after = text.split(delims.close, 1)[1] if delims.close in text else ""
        text = re.sub(re.escape(delims.open) + ".*", "", text, flags=re.S) + after
    return text.strip(), opened


async def thinking_off(case: ThinkingCase, caller: Caller, ctx: Context) -> dict[str, Any]:
    family = ctx.extras["family"]
    call = await caller.text(_messages(case), temperature=0.0, max_tokens=ANSWER_TOKENS)
    visible, opened = _visible(call.response, family)
    delims = DELIMITERS[family]
    return trial_row(
        [call],
        temperature=0.0,
        parsed={"answer": visible},
        parse_ok=call.ok,
        thinking="",
        thinking_triggered=opened,
        close_emitted=DELIMITERS[family].close in call.response,
        forced_close=False,
        waits_inserted=0,
        thinking_tokens=0,
        answer_tokens=call.completion_tokens,
        thinking_words=0,
        visible_words=metrics.word_count(visible),
        empty_visible=metrics.is_empty(visible),
        reasoning_leaked=metrics.reasoning_leaked(visible, "", (delims.open, delims.close)),
        key_fact_rate=metrics.key_fact_rate(visible, case.key_facts),
    )


async def thinking_on(
    case: ThinkingCase,
    caller: Caller,
    ctx: Context,
    *,
    max_tokens: int = DEFAULT_THINKING_TOKENS,
    min_wait: int = 0,
    temperature: float = 0.0,
) -> dict[str, Any]:
    config = ThinkingConfig(
        family=ctx.extras["family"],
        min_tokens=0,
        max_tokens=caller.cap(max_tokens),
        num_ignore=min_wait,
        answer_max_tokens=caller.cap(ANSWER_TOKENS),
        temperature=temperature,
    )
    msgs = _messages(case)
    result, _ = await caller.run_exclusive(think_then_answer(caller.backend, msgs, config))
    call = CallRecord(
        prompt=caller.render(msgs),
        response=result.answer,
        latency_s=result.latency_s,
        prompt_tokens=caller.backend.count_tokens(caller.render(msgs)),
        completion_tokens=result.thinking_tokens + result.answer_tokens,
    )
    return trial_row(
        [call],
        temperature=temperature,
        parsed={"answer": result.answer},
        parse_ok=True,
        thinking=result.thinking,
        thinking_triggered=metrics.word_count(result.thinking) > 0,
        close_emitted=result.close_emitted_naturally,
        forced_close=result.forced_close,
        waits_inserted=result.waits_inserted,
        thinking_tokens=result.thinking_tokens,
        answer_tokens=result.answer_tokens,
        thinking_words=metrics.word_count(result.thinking),
        visible_words=metrics.word_count(result.answer),
        empty_visible=metrics.is_empty(result.answer),
        reasoning_leaked=metrics.reasoning_leaked(
            result.answer, result.thinking, (config.resolved().open, config.resolved().close)
        ),
        key_fact_rate=metrics.key_fact_rate(result.answer, case.key_facts),
        min_wait=min_wait,
    )


async def prepare(ctx: Context, caller: Caller) -> None:
    family = ctx.config.thinking_family or family_for(caller.backend.model)
    ctx.extras["family"] = family
    ctx.extras.setdefault("report", {})["thinking_family"] = family


_WORDS = ["thinking_words", "visible_words"]
CURVES = {
    "thinking_budget": _WORDS,
    "min_wait": [*_WORDS, "waits_inserted"],
    "temperature": ["empty_visible", "close_emitted"],
}
"""Metrics plotted against each swept parameter."""


STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in [
        Strategy("thinking_off", "plain answer, no thinking delimiter", thinking_off),
        Strategy(
            "thinking_on",
            f"thinking opened, closed by the model (budget {DEFAULT_THINKING_TOKENS})",
            thinking_on,
            params={"thinking_budget": DEFAULT_THINKING_TOKENS},
        ),
        *[
            Strategy(
                f"min_wait_{k}",
                f"end of thinking suppressed {k}x with 'Wait' (budget {WAIT_BUDGET})",
                partial(thinking_on, min_wait=k, max_tokens=WAIT_BUDGET),
                params={"min_wait": k, "thinking_budget": WAIT_BUDGET},
                sweep="min_wait",
            )
            for k in (0, 1, 2, 4)
        ],
        *[
            Strategy(
                f"max_{b}",
                f"thinking forced closed at {b} tokens",
                partial(thinking_on, max_tokens=b),
                params={"thinking_budget": b},
                sweep="thinking_budget",
            )
            for b in (256, 512, 1024)
        ],
        *[
            Strategy(
                f"temperature_{t}",
                f"thinking at T={t}",
                partial(thinking_on, temperature=t),
                params={"temperature": t, "thinking_budget": DEFAULT_THINKING_TOKENS},
                sweep="temperature",
            )
            for t in (0.0, 0.3, 0.6, 1.0)
        ],
    ]
}

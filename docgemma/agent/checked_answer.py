"""The model's answer, checked before it is final: one retry, then the sources' own words.

Every draft goes through ``answer_check``. A draft cut off by the token limit is
ended at its last complete sentence or list item when what remains passes. A sourced
answer keeps only the sentences its sources support (``support``), and no answer keeps one
naming a drug that no dictionary knows. A failing draft is
withheld (an ``AnswerRejected`` event tells consumers to drop what streamed of it),
the model writes once more at another temperature, and if that fails too the answer
is composed by code from the tool results' key facts with their sources. Junk never
becomes the final answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from docgemma.agent import llm_calls
from docgemma.agent.answer import checked_fallback, clean_answer
from docgemma.agent.answer_check import (
    AnswerCheck,
    Defect,
    Findings,
    check_answer,
    drop_unfinished_end,
    trim_to_last_sentence,
    words,
)
from docgemma.agent.deps import AgentDeps
from docgemma.agent.events import AnswerRejected, AnswerToken
from docgemma.agent.generation import generation_for
from docgemma.agent.state import ToolResult
from docgemma.agent.support import invented_substances, keep_supported, unsupported_or_invented
from docgemma.agent.tracing import NODE_LABELS, emit
from docgemma.llm.types import Message

RETRY_TEMPERATURE_SHIFT = 0.3
"""The retry samples this much cooler (warmer when already at or below it)."""


@dataclass
class CheckedAnswer:
    text: str
    how: str
    calls: list[str] = field(default_factory=list)
    by_model: bool = True
    """False when code composed the answer because every draft failed the check."""
    thinking_tokens: int | None = None
    left_out: tuple[str, ...] = ()
    """Sentences or last clauses of the draft that named what the sources do not."""


@dataclass(frozen=True)
class Draft:
    text: str
    verdict: AnswerCheck
    left_out: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judge:
    """What a draft is checked against: the question, the prompt, the tools' names."""

    question: str
    instructions: str
    markers: tuple[str, ...]
    tool_names: tuple[str, ...]
    context: str
    missing_claims: tuple[str, ...] = ()
    """Words of the sources that failed, which the answer may use only to say so."""
    unchecked: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """What a source could not check, with the words the answer may use of it only to say so."""
    findings: tuple[Findings, ...] = ()
    """What the sources found, which the answer must not deny."""
    sourced: bool = False
    """The answer rests on sources in ``context``: a sentence naming what they do not is
    left out. Any answer loses a sentence naming a drug no dictionary knows."""

    def __call__(self, text: str, *, hit_limit: bool = False) -> Draft:
        """The text to show and its verdict; ``hit_limit``: the token limit stopped it."""
        if hit_limit:
            text = drop_unfinished_end(text)
        verdict = self._check(text)
        if verdict.defects == (Defect.CUT_OFF,):
            trimmed = trim_to_last_sentence(text)
            if trimmed and self._check(trimmed).ok:
                text, verdict = trimmed, AnswerCheck(())
        if not verdict.ok:
            return Draft(text, verdict)
        check = unsupported_or_invented if self.sourced else invented_substances
        support = keep_supported(text, self.context, check)
        if not support.left_out:
            return Draft(text, verdict)
        if not words(support.text):
            return Draft(text, AnswerCheck((Defect.UNSUPPORTED,)))
        # what is left is a new text: it must pass on its own (a lead-in whose point went)
        return Draft(support.text, self._check(support.text), support.left_out)

    def _check(self, text: str) -> AnswerCheck:
        return check_answer(
            text,
            question=self.question,
            instructions=self.instructions,
            markers=self.markers,
            tool_names=self.tool_names,
            context=self.context,
            missing_claims=self.missing_claims,
            unchecked=self.unchecked,
            findings=self.findings,
        )


def retry_temperature(first: float) -> float:
    return round(first - RETRY_TEMPERATURE_SHIFT if first > RETRY_TEMPERATURE_SHIFT else 0.7, 2)


async def write_checked(
    deps: AgentDeps,
    node: str,
    messages: Sequence[Message],
    judge: Judge,
    results: Sequence[ToolResult],
    notes: Sequence[str],
) -> CheckedAnswer:
    """Draft, check, retry once, then fall back to code; ``ModelFailure`` propagates."""
    labels = deps.registry.labels()
    first = await llm_calls.streamed_text(
        deps, node, "synthesize", messages, instructions=judge.instructions, thinking=deps.thinking
    )
    calls = list(first.calls)
    draft = judge(
        clean_answer(first.text, labels, judge.instructions, judge.question),
        hit_limit=first.hit_limit,
    )
    if draft.verdict.ok:
        how = "written by the model"
        if first.thinking_tokens is not None:
            how += f" after thinking ({first.thinking_tokens} tokens)"
        return CheckedAnswer(
            draft.text, how, calls, thinking_tokens=first.thinking_tokens, left_out=draft.left_out
        )
    verdict = draft.verdict
    label = NODE_LABELS.get(node, "")
    emit(AnswerRejected(node=node, label=label, reason=verdict.reason(), action="retry"))
    temperature = retry_temperature(generation_for("synthesize", deps.settings).temperature)
    second = await llm_calls.streamed_text(
        deps, node, "synthesize", messages, instructions=judge.instructions, temperature=temperature
    )
    calls += second.calls
    retried = judge(
        clean_answer(second.text, labels, judge.instructions, judge.question),
        hit_limit=second.hit_limit,
    )
    again = retried.verdict
    if again.ok:
        how = f"written by the model on a second try (first draft: {verdict.reason()})"
        return CheckedAnswer(retried.text, how, calls, left_out=retried.left_out)
    emit(AnswerRejected(node=node, label=label, reason=again.reason(), action="sources"))
    composed = checked_fallback(results, notes)
    emit(AnswerToken(node=node, label=label, text=composed))
    how = (
        f"both drafts failed the answer check ({verdict.reason()}; {again.reason()}); "
        "composed from the sources without model text"
    )
    return CheckedAnswer(composed, how, calls, by_model=False)

"""The model writes the answer as cited statements; only statements that pass are shown.

One constrained call gives the statements, each quoting a sentence chosen among the
sources' own (``quotes``); with nothing to quote there is no call. Each is cleaned
(``hygiene``) and held to its sources (``statements.check``); those that pass stream at
once as ``AnswerToken`` events, so what the clinician sees is never withdrawn. If some
failed, the model is told which and why and writes once more; what passes then is added.
Nothing else is retried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from docgemma.agent import llm_calls
from docgemma.agent.answer import hygiene
from docgemma.agent.answer.compose import render
from docgemma.agent.answer.quotes import (
    Quotable,
    answer_schema,
    attributed,
    quotables,
    resolved,
)
from docgemma.agent.answer.sources import Passage
from docgemma.agent.answer.statements import STATEMENT_CHARS, Checked, CitedAnswer, opposite
from docgemma.agent.deps import AgentDeps
from docgemma.agent.prompts import SYNTHESIZE_RETRY
from docgemma.events import AnswerToken, emit
from docgemma.labels import NODE_LABELS
from docgemma.llm.types import Message


@dataclass
class Written:
    kept: list[Checked] = field(default_factory=list)
    dropped: list[Checked] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    retried: bool = False
    thinking_tokens: int | None = None


def _screen(
    answer: CitedAnswer,
    choices: Sequence[Quotable],
    passages: Sequence[Passage],
    question: str,
    instructions: str,
    labels: dict[str, str],
    kept: Sequence[Checked],
) -> list[Checked]:
    """Each statement cleaned, checked for degenerate text, then held to a sentence of its
    sources; one that repeats a statement already kept is left out silently."""
    out: list[Checked] = []
    for statement in answer.statements:
        text = hygiene.clean(statement.text, labels)
        if len(statement.text) >= STATEMENT_CHARS:  # the length limit stopped it
            text = hygiene.whole_sentences(text)
        if any(hygiene.same(text, k.statement.text) for k in [*kept, *out]):
            continue
        statement = statement.model_copy(update={"text": text})
        bad = hygiene.defects(text, question=question, instructions=instructions)
        if bad:
            out.append(Checked(statement, tuple(statement.sources), "; ".join(bad)))
        else:
            out.append(attributed(statement, choices, passages, question))
    return out


OPPOSED = "says the opposite of a statement left out"


def _unopposed(checked: Sequence[Checked], dropped: Sequence[Checked]) -> list[Checked]:
    """``checked`` with each passing statement that says the opposite of a dropped one left
    out too: the check holds a statement to its quote, and a quote that says neither (a
    thesaurus level "To be taken into account") let the opposite of the dropped one pass."""
    return [
        Checked(c.statement, c.cited, OPPOSED)
        if c.ok and any(opposite(c.statement.text, d.statement.text) for d in dropped)
        else c
        for c in checked
    ]


def _failures(checked: Sequence[Checked]) -> str:
    return "\n".join(
        f"- “{c.statement.text}” (sources {', '.join(map(str, c.statement.sources))}): {c.failure}"
        for c in checked
    )


def _show(node: str, passed: Sequence[Checked], already: int) -> None:
    """Statements that passed, streamed at once; later ones as further list items."""
    if passed:
        text = "".join(f"\n- {render([c])}" for c in passed) if already else render(passed)
        emit(AnswerToken(node=node, label=NODE_LABELS.get(node, ""), text=text))


async def write_cited(
    deps: AgentDeps,
    node: str,
    messages: Sequence[Message],
    passages: Sequence[Passage],
    question: str,
    instructions: str,
) -> Written:
    """Statements from the model, checked, shown as they pass, with one retry for those
    that failed. ``ModelFailure`` propagates when the model is unavailable."""
    labels = deps.registry.labels()
    written = Written()
    choices = quotables(passages)
    if not choices:
        return written
    schema = answer_schema(choices)
    messages = list(messages)
    if deps.thinking is not None:
        reasoning, tokens = await llm_calls.think(deps, node, messages, deps.thinking)
        written.thinking_tokens = tokens
        if reasoning.strip():
            last = messages[-1]
            notes = f"\n\nYour reasoning so far:\n{hygiene.clean(reasoning, labels)}"
            messages[-1] = Message(role=last.role, content=last.content + notes)
    said, calls = await llm_calls.structured(deps, node, "synthesize", messages, schema)
    written.calls += calls
    first = _screen(resolved(said, choices), choices, passages, question, instructions, labels, [])
    first = _unopposed(first, [c for c in first if not c.ok])
    written.kept = [c for c in first if c.ok]
    _show(node, written.kept, 0)
    failed = [c for c in first if not c.ok]
    if not failed:
        return written
    written.retried = True
    retry = [
        *messages,
        Message(role="assistant", content=said.model_dump_json()),
        Message(role="user", content=SYNTHESIZE_RETRY.render(failures=_failures(failed))),
    ]
    again, calls = await llm_calls.structured(deps, node, "synthesize", retry, schema)
    written.calls += calls
    second = _screen(
        resolved(again, choices), choices, passages, question, instructions, labels, written.kept
    )
    second = _unopposed(second, [*failed, *(c for c in second if not c.ok)])
    passed = [c for c in second if c.ok]
    _show(node, passed, len(written.kept))
    written.kept += passed
    written.dropped = [*failed, *(c for c in second if not c.ok)]
    return written

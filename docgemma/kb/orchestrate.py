"""Retrieval steered step by step: the model proposes the next action, code bounds it.

The alternative to ``retrieve.retrieve``'s fixed loop. When the conversation had earlier
messages, the model first sums up what it is about (``context_summary``). After each step
the model sees the question, that summary, the searches run and the pages kept, and picks
the next action among those code allows:

- ``create_retrieval_query``: write a new search query, only while retries are left
  (``MAX_RETRIES``) and no written query waits to be searched;
- ``retrieve_kb``: search the query that waits (the question itself at first);
- ``compose_answer``: stop, and answer from the pages kept; only once a search has run.

With a single action allowed no model call is made. Topic classifications are rated
(confidence and reason) and a low-confidence topic is searched without its filter. A model
failure never loses the search: code takes the step a fixed loop would and notes it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from docgemma.kb import prompts
from docgemma.kb.models import Attempt, KBHit, Retrieval
from docgemma.kb.retrieve import PageSearch, ask, merge, rewrite_query, search_once
from docgemma.kb.topics import Role
from docgemma.llm.errors import LLMError

log = logging.getLogger(__name__)

EARLIER_MESSAGES = 4
"""The person's earlier messages the summary is written from, latest last."""

MAX_RETRIES = 2
"""New search queries the model may ask for after the question itself was searched."""


class Action(StrEnum):
    CREATE_QUERY = "create_retrieval_query"
    RETRIEVE = "retrieve_kb"
    COMPOSE = "compose_answer"


ACTION_HELP = {
    Action.CREATE_QUERY: "write a better search query for the question",
    Action.RETRIEVE: "search the knowledge base with the query waiting",
    Action.COMPOSE: "stop searching and answer from the pages kept",
}


class ContextSummary(BaseModel):
    summary: str = Field(min_length=1, max_length=240)


async def summarise(llm: Any, question: str, earlier: Sequence[str], notes: list[str]) -> str:
    """The model's one-sentence summary of the conversation; "" without earlier messages
    or when the model fails (the search then runs on the question alone)."""
    kept = [" ".join(m.split()) for m in earlier if m.strip()][-EARLIER_MESSAGES:]
    if not kept:
        return ""
    listed = "\n".join(f"- {m}" for m in kept)
    prompt = prompts.SUMMARISE_CONVERSATION.format(earlier=listed, query=question)
    try:
        answer = await ask(llm, prompt, ContextSummary)
    except LLMError as exc:
        log.warning("conversation summary failed: %s", exc)
        notes.append("conversation summary unavailable; searched on the latest message")
        return ""
    return " ".join(answer.summary.split())  # type: ignore[attr-defined]


@lru_cache(maxsize=8)
def step_model(allowed: tuple[str, ...]) -> type[BaseModel]:
    """The next action (first, so the reason cannot change it), then why."""
    return create_model(
        "KBNextStep",
        action=(Literal[allowed], ...),
        reason=(str, Field(max_length=120)),
    )


def allowed_actions(waiting: str | None, searched: bool, retries_left: int) -> list[Action]:
    """What code lets the model choose from, in this state."""
    if waiting is not None:
        first = not searched and retries_left > 0
        return [Action.CREATE_QUERY, Action.RETRIEVE] if first else [Action.RETRIEVE]
    return [Action.CREATE_QUERY, Action.COMPOSE] if retries_left > 0 else [Action.COMPOSE]


def state_text(
    question: str, context_summary: str, attempts: list[Attempt], kept: list[KBHit],
    waiting: str | None, retries_left: int, allowed: list[Action],
) -> str:  # fmt: skip
    lines = [f"Question: {question}"]
    if context_summary:
        lines.append(f"Conversation so far: {context_summary}")
    for a in attempts:
        found = ", ".join(a.selected) if a.selected else "nothing relevant"
        lines.append(f'Searched "{a.query}": {found}')
    if kept:
        pages = "; ".join(f"{h.title} (similarity {h.score:.2f})" for h in kept)
        lines.append(f"Pages kept: {pages}")
    if waiting is not None:
        lines.append(f'Query waiting to be searched: "{waiting}"')
    lines.append(f"New queries left: {retries_left}")
    choices = "\n".join(f"- {a.value}: {ACTION_HELP[a]}" for a in allowed)
    return prompts.NEXT_STEP.format(state="\n".join(lines), choices=choices)


async def _next(llm: Any, prompt: str, allowed: list[Action], notes: list[str]) -> Action:
    if len(allowed) == 1:
        return allowed[0]
    try:
        answer = await ask(llm, prompt, step_model(tuple(a.value for a in allowed)))
    except LLMError as exc:
        log.warning("next-step choice failed: %s", exc)
        fallback = Action.RETRIEVE if Action.RETRIEVE in allowed else Action.COMPOSE
        notes.append(f"next-step choice unavailable; {fallback.value} by code")
        return fallback
    action = Action(answer.action)  # type: ignore[attr-defined]
    notes.append(f"{action.value}: {answer.reason}")  # type: ignore[attr-defined]
    return action


async def orchestrate(
    kb: PageSearch,
    query: str,
    *,
    llm: Any,
    role: Role | None = None,
    k: int = 5,
    earlier: Sequence[str] = (),
) -> Retrieval:
    """Search the knowledge base for ``query`` as the model steers, within code's bounds;
    ``earlier`` holds the person's earlier messages in this conversation, oldest first."""
    question = " ".join(query.split())
    attempts: list[Attempt] = []
    kept: list[KBHit] = []
    waiting: str | None = question
    retries_left = MAX_RETRIES
    steps: list[str] = []  # notes of the steering choices, kept on the next attempt made
    context_summary = await summarise(llm, question, earlier, steps)
    while True:
        allowed = allowed_actions(waiting, bool(attempts), retries_left)
        prompt = state_text(
            question, context_summary, attempts, kept, waiting, retries_left, allowed
        )
        action = await _next(llm, prompt, allowed, steps)
        if action is Action.COMPOSE:
            break
        if action is Action.CREATE_QUERY:
            retries_left -= 1
            tried = [a.query for a in attempts] + ([waiting] if waiting else [])
            about = f"{question} ({context_summary})" if context_summary else question
            waiting = await rewrite_query(llm, about, tried, steps) or waiting
            continue
        assert waiting is not None  # RETRIEVE is allowed only with a query waiting
        attempt, found = await search_once(
            kb, waiting, question, llm=llm, role=role, k=k,
            rewritten=waiting != question, rated=True,
        )  # fmt: skip
        attempt.notes[:0], steps = steps, []
        attempts.append(attempt)
        kept = merge(kept, found)[:k]
        waiting = None
    if attempts and steps:
        attempts[-1].notes += steps
    return Retrieval(
        query=question,
        hits=kept,
        attempts=attempts,
        found=bool(kept),
        context_summary=context_summary,
    )

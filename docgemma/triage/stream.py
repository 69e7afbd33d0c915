"""What the triage nodes stream while they run, in the vocabulary both graphs share
(``docgemma.events``): a step as a node starts, lines of reasoning, pieces of the answer.

Reasoning goes out as ``ThinkingToken`` and the patient's answer as ``AnswerToken``, so a
consumer can never mix the two.
"""

from __future__ import annotations

from docgemma.events import AnswerToken, NodeStarted, ThinkingToken, emit


def step(node: str, label: str) -> None:
    emit(NodeStarted(node=node, label=label))


def answer(node: str, text: str) -> None:
    emit(AnswerToken(node=node, text=text))


def thinking(node: str, text: str) -> None:
    emit(ThinkingToken(node=node, text=text))


def reason(node: str, text: str) -> str:
    """Stream a reasoning line and return it for the state's ``reasoning`` record."""
    line = text if text.endswith("\n") else text + "\n"
    thinking(node, line)
    return line

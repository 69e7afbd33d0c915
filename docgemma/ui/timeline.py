"""Trace events → the live reasoning timeline, as Gradio "thought" messages.

Pure: no Gradio import and no clock of its own (callers pass ``now``), so the mapping
is tested as a table. Each step becomes a chat message whose ``metadata`` follows
Gradio's convention (``title``, ``status`` pending/done, ``duration``, ``id`` and
``parent_id`` for nesting): one root "Reasoning" message, one child per graph step,
and tool calls and errors nested under the step that made them. With thinking on,
the model's reasoning is one more top-level message, "Thinking", apart from the answer.

Gradio marks a thought ``aria-busy`` while its content is empty and shows a finished
step's time only when it is above zero; so once a step is done it always has some text,
and a step too quick to time says "done" where its duration would be.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from docgemma.agent.outcome import TimelineEntry
from docgemma.events import (
    AnswerToken,
    ApprovalRequested,
    Decision,
    ErrorRaised,
    LLMUsage,
    NodeFinished,
    NodeStarted,
    ResultClassified,
    ThinkingToken,
    ToolCalled,
    ToolFinished,
    TraceEvent,
)
from docgemma.labels import INTENT_WORDS, NODE_LABELS, QUALITY_WORDS
from docgemma.ui import untrusted

Status = Literal["pending", "done"]
ROOT_TITLE = "Reasoning"
THINKING_TITLE = "Thinking"
FINISHED = "Done."
"""The text of a finished step that recorded nothing else (see the module's note)."""


@dataclass
class Step:
    key: str
    title: str
    parent: str | None
    started: float
    kind: Literal["node", "tool", "note"] = "node"
    node: str = ""
    lines: list[str] = field(default_factory=list)
    status: Status = "pending"
    duration: float | None = None


def _format_args(args: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {v!r}" for k, v in args.items() if v not in (None, "", []))


@dataclass
class Timeline:
    """The steps of one turn, in order; ``turn`` keeps message ids unique across the chat."""

    turn: str
    started: float
    steps: list[Step] = field(default_factory=list)
    closed: bool = False
    total: float | None = None
    thinking: str = ""
    """The model's reasoning before the answer (thinking on); done once the answer starts."""
    thinking_started: float | None = None
    thinking_duration: float | None = None

    # ── event handling ──

    def apply(self, event: TraceEvent, now: float) -> Timeline:
        """Fold one event into the timeline; returns self so calls can chain."""
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event, now)
        return self

    def close(self, now: float, entries: list[TimelineEntry] | None = None) -> Timeline:
        """End the turn: nothing stays pending; without events, show the agent's own entries."""
        if not self.steps and entries:
            for entry in entries:
                step = self._add(entry.title, None, now, kind="note")
                if entry.detail:
                    step.lines.append(entry.detail)
                if entry.status == "error":
                    step.title = f"⚠ {entry.title}"
                step.status, step.duration = "done", entry.duration_s
        for step in self.steps:
            if step.status == "pending":
                step.status = "done"
                step.duration = round(now - step.started, 2)
        self._end_thinking(now)
        self.closed = True
        self.total = round(now - self.started, 2)
        return self

    def note(self, title: str, detail: str, now: float) -> Timeline:
        """A step the UI adds itself, e.g. the clinician's approval decision."""
        step = self._add(title, None, now, kind="note")
        step.lines.append(detail)
        step.status, step.duration = "done", 0.0
        return self

    # ── rendering ──

    def messages(self) -> list[dict[str, Any]]:
        """Chatbot messages (messages format) for the root and every step."""
        root_id = f"{self.turn}-root"
        root_meta: dict[str, Any] = {"title": ROOT_TITLE, "id": root_id}
        root_meta["status"] = "done" if self.closed else "pending"
        if self.total is not None:
            root_meta["duration"] = self.total
        done = sum(1 for s in self.steps if s.status == "done")
        root_meta["log"] = f"{done}/{len(self.steps)} steps"
        summary = f"{done} of {len(self.steps)} steps done." if self.closed else ""
        out = [{"role": "assistant", "content": summary, "metadata": root_meta}]
        for step in self.steps:
            meta: dict[str, Any] = {
                "title": step.title,
                "id": f"{self.turn}-{step.key}",
                "parent_id": f"{self.turn}-{step.parent}" if step.parent else root_id,
                "status": step.status,
            }
            if step.duration:
                meta["duration"] = step.duration
            elif step.status == "done":
                meta["log"] = "done"
            content = untrusted.markdown("\n\n".join(step.lines))  # tool args, errors: untrusted
            if not content and step.status == "done":
                content = FINISHED
            out.append({"role": "assistant", "content": content, "metadata": meta})
        if self.thinking.strip():
            out.append(self._thinking_message())
        return out

    def _thinking_message(self) -> dict[str, Any]:
        done = self.thinking_duration is not None
        meta: dict[str, Any] = {
            "title": THINKING_TITLE,
            "id": f"{self.turn}-thinking",
            "status": "done" if done else "pending",
        }
        if done:
            meta["duration"] = self.thinking_duration
        content = untrusted.markdown(self.thinking.strip())
        return {"role": "assistant", "content": content, "metadata": meta}

    # ── helpers ──

    def _add(self, title: str, parent: str | None, now: float, **kw: Any) -> Step:
        step = Step(key=f"s{len(self.steps)}", title=title, parent=parent, started=now, **kw)
        self.steps.append(step)
        return step

    def _last(self, kind: str, pending: bool = False, name: str | None = None) -> Step | None:
        for step in reversed(self.steps):
            if step.kind != kind or (pending and step.status != "pending"):
                continue
            if name is None or step.node == name:
                return step
        return None

    def _current_node(self) -> Step | None:
        return self._last("node", pending=True) or self._last("node")

    def _end_thinking(self, now: float) -> None:
        if self.thinking_started is not None and self.thinking_duration is None:
            self.thinking_duration = round(now - self.thinking_started, 2)


def _node_started(tl: Timeline, ev: NodeStarted, now: float) -> None:
    title = ev.label or ev.node.replace("_", " ").capitalize()
    seen = sum(1 for s in tl.steps if s.kind == "node" and s.node == ev.node)
    if seen:
        title = f"{title} (retry {seen})"
    tl._add(title, None, now, kind="node", node=ev.node)


def _node_finished(tl: Timeline, ev: NodeFinished, now: float) -> None:
    step = tl._last("node", pending=True, name=ev.node)
    if step is None:
        return
    step.status = "done"
    step.duration = round(ev.duration_s or now - step.started, 2)


def decision_words(decision: str) -> str:
    """A decision's label in words: a result class or an intent as the timeline words it, a step the
    turn goes on to by its name ("next: writing the answer"), any other label unsnaked."""
    if decision in QUALITY_WORDS:
        return QUALITY_WORDS[decision]
    if decision in INTENT_WORDS:
        return INTENT_WORDS[decision]
    if decision in NODE_LABELS:
        return f"next: {NODE_LABELS[decision].lower()}"
    return decision.replace("_", " ")


def _decision(tl: Timeline, ev: Decision, now: float) -> None:
    step = tl._current_node()
    if ev.title:  # code wrote it for the clinician: its title and detail, not its label
        explained = ev.detail or ev.reason
        text = f"**{ev.title}**" + (f" — {explained}" if explained else "")
    else:
        words = decision_words(ev.decision)
        text = f"Decision: **{words}**" + (f" — {ev.reason}" if ev.reason else "")
    if step is None:
        tl.note(ev.label or "Decision", text, now)
    else:
        step.lines.append(text)


def _tool_called(tl: Timeline, ev: ToolCalled, now: float) -> None:
    parent = tl._current_node()
    step = tl._add(ev.tool_label, parent.key if parent else None, now, kind="tool", node=ev.tool)
    args = _format_args(ev.args)
    step.lines.append(f"Arguments: {args}" if args else "No arguments")


def _tool_finished(tl: Timeline, ev: ToolFinished, now: float) -> None:
    step = tl._last("tool", pending=True, name=ev.tool)
    if step is None:
        parent = tl._current_node()
        step = tl._add(
            ev.tool_label, parent.key if parent else None, now, kind="tool", node=ev.tool
        )
    step.status = "done"
    step.duration = round(ev.duration_s or now - step.started, 2)
    if ev.ok:
        step.lines.append("Result: returned" + (f" — {ev.summary}" if ev.summary else ""))
    else:
        step.title = f"⚠ {step.title}"
        step.lines.append(
            f"Failed: {ev.error_type or 'error'}" + (f" — {ev.summary}" if ev.summary else "")
        )


def _result_classified(tl: Timeline, ev: ResultClassified, now: float) -> None:
    step = tl._last("tool") or tl._current_node()
    quality = QUALITY_WORDS.get(ev.quality, ev.quality)
    text = f"Assessed: **{quality}**" + (f" — {ev.summary}" if ev.summary else "")
    if step is None:
        tl.note("Result", text, now)
    else:
        step.lines.append(text)


def _llm_usage(tl: Timeline, ev: LLMUsage, now: float) -> None:
    step = tl._current_node()
    if step is not None:
        step.lines.append(
            f"Model call ({ev.purpose}): {ev.prompt_tokens} tokens read, "
            f"{ev.completion_tokens} written, {ev.latency_s:.2f} s"
        )


def _approval(tl: Timeline, ev: ApprovalRequested, now: float) -> None:
    tl.note("Awaiting clinician approval", ev.summary, now)  # it names the record itself


def _error(tl: Timeline, ev: ErrorRaised, now: float) -> None:
    parent = tl._current_node()
    step = tl._add(f"⚠ {ev.label or 'Error'}", parent.key if parent else None, now, kind="note")
    step.lines.append(ev.message)
    step.status, step.duration = "done", 0.0


def _thinking(tl: Timeline, ev: ThinkingToken, now: float) -> None:
    if tl.thinking_started is None:
        tl.thinking_started = now
    tl.thinking += ev.text


def _answer(tl: Timeline, ev: AnswerToken, now: float) -> None:
    """Answer tokens stream into the answer, not the timeline; the first ends the thinking."""
    tl._end_thinking(now)


_HANDLERS: dict[type, Any] = {
    NodeStarted: _node_started,
    NodeFinished: _node_finished,
    Decision: _decision,
    ToolCalled: _tool_called,
    ToolFinished: _tool_finished,
    ResultClassified: _result_classified,
    LLMUsage: _llm_usage,
    ApprovalRequested: _approval,
    ErrorRaised: _error,
    AnswerToken: _answer,
    ThinkingToken: _thinking,
}

"""The "Patient triage" tab: demographics, the chat, a severity banner, reasoning, sources.

The page shows the model's words only as Gradio-sanitised Markdown (the chat) or plain
text (the reasoning box); the banner and the sources list are built here from
code-controlled values with every page field escaped. No ``from __future__ import
annotations``: Gradio reads handler annotations at run time.
"""

import asyncio
import html
import logging
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import gradio as gr

from docgemma.config import Settings
from docgemma.events import AnswerToken, ThinkingToken, TraceEvent
from docgemma.kb import DEMO_NOTICE
from docgemma.triage import red_flags
from docgemma.triage.answer import TriageAnswer
from docgemma.triage.demographics import AgeBand, Demographics, Sex
from docgemma.triage.patient_text import fallback_text
from docgemma.ui.ownership import owner_only
from docgemma.ui.session import FOREIGN
from docgemma.ui.untrusted import NO_LATEX
from docgemma.ui.uploads import too_long

log = logging.getLogger(__name__)
NOT_GIVEN = "Not given"
AGE_CHOICES = [NOT_GIVEN, *(a.value for a in AgeBand)]
SEX_CHOICES = [NOT_GIVEN, *(s.value for s in Sex)]
BANNER_TEXT = "#ffffff"
"""The banner's text colour: on every severity's colour it keeps WCAG AA contrast (4.5:1).
It is set inline on each element, since Gradio's ``.prose *`` rule outranks the class and
would paint the label in the page's body colour."""
TRIAGE_CSS = """
#triage-notice { border-left: 4px solid #b00020; padding-left: 8px; }
.triage-banner { padding: 12px 16px; border-radius: 8px; font-size: 1.1em; }
"""
_MARKUP = re.compile(r"[\[\]()<>*_`#|\\]")


class TriageRunner(Protocol):
    def run_turn(
        self, thread_id: str, message: str, *, demographics: Demographics | None = None
    ) -> AsyncIterator[TraceEvent | TriageAnswer]: ...


TriageFactory = Callable[[Settings, Any], TriageRunner | Awaitable[TriageRunner]]
"""Builds the triage service from the settings and the clinician agent (to share its model)."""


async def shared_model_triage(settings: Settings, agent: Any) -> TriageRunner:
    """The app's default: the triage graph on the clinician agent's own model."""
    from docgemma.llm.registry import create_backend
    from docgemma.triage.factory import build_triage

    llm = getattr(getattr(agent, "deps", None), "llm", None)
    if llm is None:
        llm = await asyncio.to_thread(create_backend, settings)
    return await build_triage(settings, llm)


@dataclass
class TriageSession:
    """One browser session's triage conversation; like the chat's, it belongs to its first
    user, and its thread id is a random secret made on first use."""

    thread_id: str = ""
    history: list[dict[str, str]] = field(default_factory=list)
    owner: str | None = None
    """The signed-in user this conversation belongs to (None in open demo mode)."""
    claimed: bool = False

    def thread(self) -> str:
        if not self.thread_id:
            self.thread_id = f"triage-{secrets.token_urlsafe(32)}"
        return self.thread_id

    def claim(self, user: str | None) -> bool:
        """True when ``user`` may act in this conversation: its first user, and only them."""
        if not self.claimed:
            self.owner, self.claimed = user, True
        return self.owner == user


def new_triage_session() -> TriageSession:
    """A fresh conversation (tests). The tab's ``gr.State`` holds a plain ``TriageSession()``
    that Gradio deep-copies per browser session, so there is no load event to replay."""
    return TriageSession()


def plain(text: str) -> str:
    """Page text for Markdown: markup characters removed, HTML escaped."""
    return html.escape(_MARKUP.sub("", text))


def banner_html(answer: TriageAnswer) -> str:
    if answer.severity is None:
        return ""
    flags = ""
    if answer.red_flags:
        flags = "<br>Emergency warning signs: " + html.escape("; ".join(answer.red_flags))
    return (
        f'<div class="triage-banner" data-severity="{html.escape(answer.severity.name)}" '
        f'style="background:{answer.severity.colour};color:{BANNER_TEXT}">'
        f'<strong style="color:{BANNER_TEXT}">{html.escape(answer.severity.value)}</strong> — '
        f"{html.escape(answer.severity.action)}{flags}</div>"
    )


def sources_markdown(answer: TriageAnswer) -> str:
    if not answer.sources:
        return ""
    lines = ["**Sources**"]
    for n, s in enumerate(answer.sources, 1):
        kind = "literature" if s.kind == "literature" else "condition page"
        lines.append(
            f"{n}. {plain(s.title)} — {kind}, similarity {s.score:.2f} ({plain(s.source)})"
        )
    return "\n".join(lines)


def demographics_from(age: str, sex: str, pregnant: bool) -> Demographics:
    return Demographics(
        age_band=None if age in (None, NOT_GIVEN) else AgeBand(age),
        sex=None if sex in (None, NOT_GIVEN) else Sex(sex),
        pregnant=bool(pregnant),
    )


@dataclass
class TriageView:
    chat: Any
    msg: Any
    banner: Any
    reasoning: Any
    sources: Any
    follow_row: Any
    follow: list[Any]

    @property
    def outputs(self) -> list[Any]:
        return [
            self.chat,
            self.msg,
            self.banner,
            self.reasoning,
            self.sources,
            self.follow_row,
            *self.follow,
        ]


def _refused(arguments: dict[str, Any]) -> dict[Any, Any]:
    """Another signed-in user's call: the conversation stays unread, the notice says why."""
    v = arguments["self"].view
    return {v.chat: [], v.banner: "", v.reasoning: "", v.sources: plain(FOREIGN)}


class TriageHandlers:
    def __init__(self, get_service: Callable[[], Awaitable[TriageRunner]]) -> None:
        self._get_service = get_service
        self.view: TriageView | None = None

    @owner_only(_refused)
    async def submit(
        self,
        message: str,
        age: str,
        sex: str,
        pregnant: bool,
        session: TriageSession,
        request: gr.Request | None = None,
    ) -> AsyncIterator[dict[Any, Any]]:
        v = self.view
        assert v is not None
        demographics = demographics_from(age, sex, pregnant)
        text = (message or "").strip()
        notice = too_long(text)
        if notice:  # the message stays in its box to be shortened
            yield {v.sources: f"⚠️ {plain(notice)}"}
            return
        shown = [*session.history, *([{"role": "user", "content": text}] if text else [])]
        yield {v.chat: shown, v.msg: "", v.banner: "", v.reasoning: "", v.sources: ""}
        answer: TriageAnswer | None = None
        thinking, partial = "", ""
        try:
            service = await self._get_service()
            async for item in service.run_turn(session.thread(), text, demographics=demographics):
                if isinstance(item, ThinkingToken):
                    thinking += item.text
                    yield {v.reasoning: thinking}
                elif isinstance(item, AnswerToken):
                    partial += item.text
                    yield {v.chat: [*shown, {"role": "assistant", "content": partial}]}
                elif isinstance(item, TriageAnswer):
                    answer = item
        except Exception:  # the page must answer, with the rules' advice, even with no model
            log.exception("triage tab: the service failed")
            fired = red_flags.check(text, demographics)
            answer = TriageAnswer(
                answer=fallback_text(red_flags.floor(fired), fired),
                severity=red_flags.floor(fired),
                red_flags=[f.title for f in fired],
                fallback=True,
            )
        assert answer is not None
        reply = "\n\n".join([*(f"> ℹ️ {n}" for n in answer.notices), answer.answer])
        session.history = [*shown, {"role": "assistant", "content": reply}]
        follow = answer.follow_ups[:3]
        yield {
            v.chat: session.history,
            v.banner: banner_html(answer),
            v.reasoning: answer.reasoning,
            v.sources: sources_markdown(answer),
            v.follow_row: gr.update(visible=bool(follow)),
            **{b: gr.update(value=q, visible=True) for b, q in zip(v.follow, follow, strict=False)},
        }


def triage_tab(handlers: TriageHandlers) -> None:
    """The tab's components and wiring; call inside ``gr.Tabs``."""
    with gr.Tab("Patient triage", id="triage"):
        gr.Markdown(f"⚠️ **{DEMO_NOTICE}**", elem_id="triage-notice")
        session = gr.State(TriageSession())  # deep-copied per browser session
        with gr.Row():
            with gr.Column(scale=3):
                chat = gr.Chatbot(
                    label="Conversation",
                    height=420,
                    elem_id="triage-chat",
                    latex_delimiters=NO_LATEX,
                )
                banner = gr.HTML(elem_id="triage-banner")
                with gr.Accordion("Reasoning", open=False, elem_id="triage-reasoning"):
                    reasoning = gr.Textbox(
                        show_label=False, lines=8, interactive=False, elem_id="triage-thinking"
                    )
                sources = gr.Markdown(elem_id="triage-sources", latex_delimiters=NO_LATEX)
                with gr.Row(visible=False) as follow_row:
                    follow = [
                        gr.Button(size="sm", elem_classes=["triage-follow-up"]) for _ in range(3)
                    ]
                msg = gr.Textbox(
                    placeholder="Describe your symptoms, e.g. “sore throat and a temperature”",
                    show_label=False,
                    elem_id="triage-msg",
                )
                send = gr.Button("Send", variant="primary", elem_id="triage-send")
            with gr.Column(scale=1):
                gr.Markdown("**About you** (optional; changes the advice where it should)")
                age = gr.Dropdown(AGE_CHOICES, value=NOT_GIVEN, label="Age", elem_id="triage-age")
                sex = gr.Radio(SEX_CHOICES, value=NOT_GIVEN, label="Sex", elem_id="triage-sex")
                pregnant = gr.Checkbox(label="I am pregnant", elem_id="triage-pregnant")
    handlers.view = TriageView(chat, msg, banner, reasoning, sources, follow_row, follow)
    inputs = [age, sex, pregnant, session]
    run = {"concurrency_id": "triage", "concurrency_limit": 1}
    msg.submit(handlers.submit, [msg, *inputs], handlers.view.outputs, **run)
    send.click(handlers.submit, [msg, *inputs], handlers.view.outputs, **run)
    for button in follow:
        button.click(handlers.submit, [button, *inputs], handlers.view.outputs, **run)

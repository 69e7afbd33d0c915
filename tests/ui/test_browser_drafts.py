"""A draft that fails its check never reaches the screen, in a real browser.

The agent, the interaction tool (offline thesaurus) and the page are real; the model is
scripted so that its first answer denies what the source says. The page records every
state of the answer's message as the browser builds it (a MutationObserver on the chat),
and no recorded state may hold the withdrawn statement.
"""

from __future__ import annotations

import asyncio

import pytest
from live_app import CHROMIUM, chromium_tab, running_app
from scripted_quotes import answering
from test_browser import ask, last_bot_text

from docgemma.agent import factory
from docgemma.llm.scripted import ScriptedBackend
from docgemma.ui.turns import DRAFTING

pytestmark = pytest.mark.browser
QUOTE = "Effect: Increase of effect"
WRITING_S = 1.5
WITHDRAWN = "Warfarin and ciprofloxacin do not interact."
KEPT = "Ciprofloxacin increases the effect of warfarin and the bleeding risk."
SCRIPT = [
    {"intent": "TOOL_NEEDED", "task_summary": "interaction check", "suggested_tool": None},
    {"tool_name": "check_drug_interactions"},
    {"drug_names": ["warfarin", "ciprofloxacin"]},
    {"quality": "success_rich", "brief_summary": "a graded interaction"},
    answering((QUOTE, WITHDRAWN)),  # denies what its quote says: dropped, and retried
    answering((QUOTE, KEPT)),
]
RECORD_STATES = """() => {
    window.__states = [];
    const chat = document.querySelector('#chat');
    const record = () => {
        const bots = chat.querySelectorAll("[data-testid='bot']");
        if (bots.length) window.__states.push(bots[bots.length - 1].innerText);
    };
    new MutationObserver(record).observe(
        chat, {subtree: true, childList: true, characterData: true}
    );
}"""


class SlowToWrite(ScriptedBackend):
    """Writes each answer after a pause, as a real model does, so that the page's drafting
    state lasts long enough to be seen (an instant reply could replace it before the
    browser drew it)."""

    async def structured(self, messages, schema, **kwargs):
        if schema.__name__ == "CitedAnswer":
            await asyncio.sleep(WRITING_S)
        return await super().structured(messages, schema, **kwargs)


@pytest.fixture
def tab(tmp_path, monkeypatch):
    if not CHROMIUM.exists():
        pytest.fail("Chromium is missing at /usr/bin/chromium; make test installs it")
    monkeypatch.setattr(factory, "create_backend", lambda _settings: SlowToWrite(SCRIPT))
    with (
        running_app(tmp_path / "var", agent_factory=factory.build_agent, backend="scripted") as url,
        chromium_tab(url) as page,
    ):
        yield page


def test_every_visible_state_of_an_answer_whose_draft_failed_holds_only_checked_text(tab):
    tab.evaluate(RECORD_STATES)
    ask(tab, "Does warfarin interact with ciprofloxacin?")
    states = tab.evaluate("window.__states")
    answer = last_bot_text(tab)
    assert KEPT in answer and WITHDRAWN not in answer
    assert len(states) > 2, "the observer saw the answer being built"
    assert any(DRAFTING.strip("*").split(" —")[0] in s for s in states)
    leaked = [s for s in states if "do not interact" in s]
    assert not leaked, f"a withdrawn draft was on screen: {leaked[0]!r}"

"""The app's profile choice and conversation download."""

from __future__ import annotations

import json
from pathlib import Path

from docgemma.config import Settings
from docgemma.experts import Mode
from docgemma.ui.conversation_tools import clinician_profiles, export_file, profiled
from docgemma.ui.session import SessionState


def chat() -> SessionState:
    session = SessionState(profile="pharmacist")
    session.history = [
        {"role": "user", "content": "Warfarin with aspirin?"},
        {"role": "assistant", "content": "", "metadata": {"title": "Choosing a source"}},
        {"role": "assistant", "content": "Major bleeding risk [1].\n\n**Sources**\n1. Label"},
        {"role": "user", "content": {"path": "/tmp/x.png"}},
    ]
    return session


def test_the_download_holds_only_what_was_said() -> None:
    markdown = Path(export_file(chat(), "markdown")).read_text()
    assert markdown.startswith("# Warfarin with aspirin?")
    assert "**Clinician**\n\nWarfarin with aspirin?" in markdown
    assert "**DocGemma**\n\nMajor bleeding risk [1]." in markdown
    assert "Choosing a source" not in markdown and "x.png" not in markdown
    body = json.loads(Path(export_file(chat(), "json")).read_text())
    assert body["profile"] == "pharmacist"
    assert [m["role"] for m in body["messages"]] == ["user", "assistant"]


def test_nothing_to_download_before_the_first_message() -> None:
    assert export_file(SessionState(), "markdown") is None


def test_the_app_offers_clinician_profiles_and_applies_them(settings: Settings) -> None:
    profiles = clinician_profiles(settings)
    assert all(p.mode is Mode.CLINICIAN for p in profiles.profiles)
    assert "triage" not in {p.name for p in profiles.profiles}

    class Agent:
        def for_profile(self, profile):
            return ("configured", profile.name)

    assert profiled(Agent(), SessionState(profile="ward"), profiles) == ("configured", "ward")
    plain = Agent()
    assert profiled(plain, SessionState(), profiles) is plain
    assert profiled(None, SessionState(profile="ward"), profiles) is None

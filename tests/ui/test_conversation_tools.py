"""The app's profile choice and conversation download."""

from __future__ import annotations

import json
from pathlib import Path

from docgemma.config import Settings
from docgemma.experts import Mode
from docgemma.transcript import TranscriptMessage
from docgemma.ui.conversation_tools import clinician_profiles, export_file, profiled
from docgemma.ui.session import SessionState


def said() -> list[TranscriptMessage]:
    return [
        TranscriptMessage(role="user", content="Warfarin with aspirin?", created_at=1.7e9),
        TranscriptMessage(
            role="assistant",
            content="Major bleeding risk [1].",
            sources=[{"title": "Warfarin label", "url": "https://example.org/label"}],
            notices=["Your message was longer than 8000 characters; only the first part was read."],
        ),
    ]


def test_the_download_holds_what_was_said_with_notices_and_sources() -> None:
    markdown = Path(export_file(said(), "pharmacist", "markdown")).read_text()
    assert markdown.startswith("# Warfarin with aspirin?")
    assert "**Clinician** · 2023-11-14 22:13 UTC\n\nWarfarin with aspirin?" in markdown
    assert "> Note: Your message was longer" in markdown
    assert (
        "Major bleeding risk [1].\n\nSources:\n1. [Warfarin label](https://example.org/label)"
        in markdown
    )
    body = json.loads(Path(export_file(said(), "pharmacist", "json")).read_text())
    assert body["profile"] == "pharmacist"
    assert [m["role"] for m in body["messages"]] == ["user", "assistant"]
    assert body["messages"][1]["notices"] == said()[1].notices


def test_nothing_to_download_before_the_first_message() -> None:
    assert export_file([], None, "markdown") is None


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

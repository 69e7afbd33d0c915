"""The security tests attack the real app and server; they reuse the UI tests' live-app helpers."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ui"))

from live_app import running_app  # noqa: E402 (found through the path set just above)
from ui_fakes import FakeAgent  # noqa: E402


@pytest.fixture(scope="module")
def agent() -> FakeAgent:
    """The agent double behind the module's live app; it records every turn it is given."""
    return FakeAgent()


@pytest.fixture(scope="module")
def live_app_with(tmp_path_factory, agent):
    """Start the real app on the agent double with some settings changed; yields its URL."""
    with ExitStack() as stack:

        def start(**overrides) -> str:
            folder = tmp_path_factory.mktemp("app")
            return stack.enter_context(
                running_app(folder, agent_factory=lambda s, e: agent, **overrides)
            )

        yield start

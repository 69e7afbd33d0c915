"""The app on the real tiny model, served once for the whole session.

Starting the app loads the embedded model in its engine process, the embedder and the
indexes; the browser tests on the real model only read from it or write to their own
patient, so one app serves them all (the agent tab and the triage tab alike).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from live_app import running_app

TINY_APP = {
    "model": "gemma3-270m",
    "triage_thinking_max_tokens": 32,  # a CPU-sized triage turn
    "triage_min_waits": 0,
}
"""Settings of the shared app: the fast profile, since these tests are about the pipeline
and the page, not the answer (``test_browser_answers.py`` runs the default profile)."""


@pytest.fixture(scope="session")
def real_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The whole app (agent and triage tabs) on Gemma 3 270M; yields its base URL."""
    with running_app(tmp_path_factory.mktemp("real"), **TINY_APP) as url:
        yield url

"""Fixtures shared by the whole suite.

The real embedded model is loaded once per session (``real_llm``); tests that use it
are marked ``real_model`` so they can be selected or deselected, never hidden.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from repo_guard import OPENED_OUTSIDE, guarded_zone, refuse_reads_beside_the_repo

from docgemma.config import Settings, get_settings


def pytest_configure(config: pytest.Config) -> None:
    sys.addaudithook(refuse_reads_beside_the_repo(*guarded_zone()))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if OPENED_OUTSIDE:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """Settings isolated from the developer's environment, with a temporary data folder."""
    for key in list(os.environ):
        if key.startswith("DOCGEMMA_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("DOCGEMMA_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("DOCGEMMA_OFFLINE", "true")
    get_settings.cache_clear()
    yield get_settings()
    get_settings.cache_clear()


@pytest.fixture(scope="session")
def real_llm():
    """The real embedded backend: llama.cpp running Gemma 3 270M from the PyPI package."""
    from docgemma.assets import gemma_270m_path
    from docgemma.llm.llamacpp import LlamaCppBackend

    backend = LlamaCppBackend(gemma_270m_path(), n_ctx=4096, seed=0)
    yield backend
    backend._llm.close()

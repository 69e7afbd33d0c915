"""Fixtures shared by the whole suite.

The real embedded model is loaded once per session (``real_llm``); tests that use it
are marked ``real_model`` so they can be selected or deselected, never hidden.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docgemma.config import Settings, get_settings

SHARED = Path(__file__).resolve().parents[2] / "shared"
FIXTURES = SHARED / "fixtures"


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """Settings isolated from the developer's environment, with a temporary data folder."""
    for key in list(__import__("os").environ):
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

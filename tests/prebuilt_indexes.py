"""The offline indexes built once per test process and copied into each test's data folder.

An app, agent or API started on an empty data folder builds the literature index and the
knowledge base in the background, and its shutdown waits for that build: every test that
starts one would pay for it, at the start or in its teardown.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from pathlib import Path

from docgemma.config import Settings

_built: Path | None = None
_building = threading.Lock()


def built_indexes() -> Path:
    """The offline indexes (literature and knowledge base), built once per test process."""
    global _built
    with _building:
        if _built is None:
            from docgemma.kb import prepare_knowledge_base
            from docgemma.tools.literature_index import prepare_index

            folder = Path(tempfile.mkdtemp(prefix="docgemma-indexes-"))
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            settings = Settings(data_dir=folder, offline=True)
            prepare_index(settings)
            prepare_knowledge_base(settings)
            _built = folder / "chroma"
    return _built


def seed_indexes(data_dir: Path) -> None:
    """Give a fresh data folder a copy of the built indexes, as ``make app`` leaves them.
    The copy is checked like any store the app finds (corpus digest, abstract count)."""
    target = Path(data_dir) / "chroma"
    if not target.exists():
        shutil.copytree(built_indexes(), target)

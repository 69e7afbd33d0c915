"""How long patient data stays on the app's disk: images and idle conversations.

Uploaded and rendered images (``<data_dir>/uploads``) older than
``upload_retention_hours`` are deleted, and conversations whose last checkpoint is
older than ``checkpoint_retention_days`` are forgotten with their pending approvals
(and with the API's copies of the page's conversations, when the app keeps them).
The app runs ``tidy`` at start-up and then every ``interval_s`` while it serves.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from docgemma.config import Settings

log = logging.getLogger(__name__)
HOUR, DAY = 3600.0, 86400.0


def prune_files(folder: Path, max_age_s: float, now: float | None = None) -> int:
    """Delete files under ``folder`` last modified more than ``max_age_s`` ago; how many."""
    if not folder.is_dir():
        return 0
    cutoff = (now if now is not None else time.time()) - max_age_s
    removed = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file() and path.stat().st_mtime < cutoff:
                path.unlink()
                removed += 1
        except OSError:  # another request removed or is writing it; next round
            continue
    return removed


async def prune_checkpoints(saver: Any, max_age_s: float, now: float | None = None) -> int:
    """Forget threads whose newest checkpoint is older than ``max_age_s``; how many."""
    latest: dict[str, float] = {}
    async for item in saver.alist(None):
        thread = item.config["configurable"]["thread_id"]
        stamp = datetime.fromisoformat(item.checkpoint["ts"]).replace(tzinfo=UTC).timestamp()
        latest[thread] = max(stamp, latest.get(thread, stamp))
    cutoff = (now if now is not None else time.time()) - max_age_s
    stale = [thread for thread, stamp in latest.items() if stamp < cutoff]
    for thread in stale:
        await saver.adelete_thread(thread)
    return len(stale)


Forget = Callable[[float], Awaitable[int]]
"""Deletes other copies of conversations idle longer than the given seconds; how many."""


async def tidy(
    settings: Settings,
    upload_dir: Path,
    checkpointer: Callable[[], Awaitable[Any]],
    forget: Forget | None = None,
) -> None:
    """One clean-up round; ``checkpointer`` yields the agent's saver (None: nothing to do)."""
    files = await asyncio.to_thread(prune_files, upload_dir, settings.upload_retention_hours * HOUR)
    saver = await checkpointer()
    threads = 0
    if saver is not None and hasattr(saver, "adelete_thread"):
        threads = await prune_checkpoints(saver, settings.checkpoint_retention_days * DAY)
    if forget is not None:
        threads += await forget(settings.checkpoint_retention_days * DAY)
    if files or threads:
        log.info("Retention: removed %d old image(s) and %d idle conversation(s)", files, threads)


async def keep_tidy(
    settings: Settings,
    upload_dir: Path,
    checkpointer: Callable[[], Awaitable[Any]],
    interval_s: float = HOUR,
    forget: Forget | None = None,
) -> None:
    """``tidy`` now and every ``interval_s`` until cancelled; a failed round is logged."""
    while True:
        try:
            await tidy(settings, upload_dir, checkpointer, forget)
        except Exception:  # clean-up must never take the app down
            log.exception("retention clean-up failed; retrying next round")
        await asyncio.sleep(interval_s)

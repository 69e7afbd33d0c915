"""A lock granted in arrival order, for the one model that all sessions share.

``threading.Lock`` promises no order: under load one session's next call can win the
lock again and again while another waits. Tickets make the wait first come, first
served, so every queued model call of every session runs in the order it asked.
"""

from __future__ import annotations

import threading
from types import TracebackType


class FairLock:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._issued = 0
        self._serving = 0

    @property
    def queued(self) -> int:
        """Callers holding or waiting for the lock."""
        with self._changed:
            return self._issued - self._serving

    def __enter__(self) -> FairLock:
        with self._changed:
            ticket = self._issued
            self._issued += 1
            self._changed.wait_for(lambda: self._serving == ticket)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        with self._changed:
            self._serving += 1
            self._changed.notify_all()

"""``BuiltOnce``: a costly object (the agent, the triage service) built on first use.

The app, its page and its API share one of each; a caller that arrives while the
build runs waits for that same build, and a build that failed is tried again by the
next caller (a missing model file can be fixed without a restart).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class BuiltOnce(Generic[T]):
    def __init__(self, build: Callable[[], T | Awaitable[T]]) -> None:
        self._build = build
        self._made: list[T] = []
        self._lock = asyncio.Lock()
        self._failure: BaseException | None = None

    async def get(self) -> T:
        async with self._lock:
            if not self._made:
                try:
                    made = self._build()
                    self._made.append(await made if inspect.isawaitable(made) else made)
                except Exception as exc:
                    self._failure = exc
                    raise
                self._failure = None
        return self._made[0]

    def failure(self) -> BaseException | None:
        """Why the last build failed, until one succeeds (what the page says about it)."""
        return self._failure

    def ready(self) -> bool:
        """True once built: ``get`` will not wait."""
        return bool(self._made)

    def built(self) -> T | None:
        """The object if it was built, without building it (to release it at shutdown)."""
        return self._made[0] if self._made else None

"""Blocking model iterators as async streams, shared by the in-process backends."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import Executor
from typing import Any


async def iterate_in_thread(
    iterator: Iterator[str], executor: Executor | None = None
) -> AsyncIterator[str]:
    """Drive a blocking iterator in a worker thread without blocking the event loop.

    ``executor``: run it there (a backend's own model thread) instead of on a new thread.
    When the consumer stops early the worker closes the iterator at its next item, so
    an abandoned stream releases the model's lock instead of decoding to ``max_tokens``.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
    stop = threading.Event()

    def post(kind: str, value: Any) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, (kind, value))
        except RuntimeError:  # the loop is closed: nobody is listening any more
            stop.set()

    def run() -> None:
        try:
            for item in iterator:
                if stop.is_set():
                    return
                post("item", item)
            post("end", None)
        except BaseException as exc:  # handed to the consumer, raised there
            post("error", exc)
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()

    if executor is None:
        threading.Thread(target=run, daemon=True).start()
    else:
        executor.submit(run)
    try:
        while True:
            kind, value = await queue.get()
            if kind == "item":
                yield value
            elif kind == "error":
                raise value
            else:
                break
    finally:
        stop.set()

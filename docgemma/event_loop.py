"""The event loop that runs a turn: uvloop where it installs, else asyncio's own.

The app and the API run under uvicorn, which picks uvloop when it can; the CLI, the
evaluation and the benchmark run here on the same one, so their timings are the app's.
On the benchmark uvloop took about 2 ms off the agent's own time in a tool turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

R = TypeVar("R")


def loop_name() -> str:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def run(main: Coroutine[Any, Any, R]) -> R:
    """``asyncio.run`` on the loop the app's server uses."""
    if loop_name() == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)

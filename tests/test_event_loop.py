"""The CLI, the evaluation and the benchmark run turns on the loop the app's server uses."""

from __future__ import annotations

import asyncio

import uvicorn

from docgemma import event_loop


async def _loop_type() -> type:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop())


def test_runs_on_the_loop_uvicorn_serves_the_app_on() -> None:
    server_loop = uvicorn.Config(app=None).get_loop_factory()()
    try:
        assert event_loop.run(_loop_type()) is type(server_loop)
    finally:
        server_loop.close()


def test_uvloop_is_installed_with_the_project() -> None:
    """Declared in pyproject.toml rather than left to another package's extras: the benchmark's
    timings (docs/benchmarks.md) were measured on it."""
    assert event_loop.loop_name() == "uvloop"

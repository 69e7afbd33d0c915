"""``BuiltOnce``: one build for concurrent first callers, a failed build tried again."""

from __future__ import annotations

import asyncio

import pytest

from docgemma.once import BuiltOnce


async def test_concurrent_first_callers_share_one_build() -> None:
    builds: list[int] = []
    release = asyncio.Event()

    async def build() -> dict[str, int]:
        builds.append(1)
        await release.wait()
        return {"n": len(builds)}

    once = BuiltOnce(build)
    waiting = [asyncio.create_task(once.get()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not once.ready() and once.built() is None
    release.set()
    got = await asyncio.gather(*waiting)
    assert builds == [1] and all(g is got[0] for g in got)
    assert once.ready() and once.built() is got[0] and await once.get() is got[0]


async def test_a_failed_build_is_tried_again_by_the_next_caller() -> None:
    attempts: list[int] = []

    def build() -> str:  # a plain function works as well as a coroutine
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("model file missing")
        return "agent"

    once = BuiltOnce(build)
    with pytest.raises(RuntimeError, match="model file missing"):
        await once.get()
    assert not once.ready() and str(once.failure()) == "model file missing"
    assert await once.get() == "agent" and len(attempts) == 2 and once.ready()
    assert once.failure() is None  # the page stops reporting a fixed failure

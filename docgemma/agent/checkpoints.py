"""Where conversation state lives: SQLite in the data folder, or PostgreSQL.

With ``DOCGEMMA_DATABASE_URL`` set, LangGraph's Postgres checkpointer keeps every
thread, so several API processes behind a load balancer serve the same sessions.
"""

from __future__ import annotations

import asyncio

from langgraph.checkpoint.base import BaseCheckpointSaver

from docgemma.agent.service import sqlite_checkpointer
from docgemma.checkpoint_serde import checkpoint_serializer
from docgemma.config import Settings

MIGRATIONS_LOCK = "SELECT pg_try_advisory_lock(4105) AS locked"
"""One replica at a time runs LangGraph's checkpoint migrations (4104 guards the API's tables)."""


def postgres_kwargs() -> dict[str, object]:
    """Connection options LangGraph's saver requires (autocommit, dict rows, no prepares)."""
    from psycopg.rows import dict_row

    return {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}


async def postgres_checkpointer(url: str) -> BaseCheckpointSaver:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg_pool import AsyncConnectionPool

    pool = AsyncConnectionPool(url, open=False, max_size=8, kwargs=postgres_kwargs())
    await pool.open(wait=True)
    saver = AsyncPostgresSaver(pool, serde=checkpoint_serializer())  # type: ignore[arg-type]
    async with pool.connection() as conn:
        # Replicas starting together must not both run the saver's migrations (the second
        # insert of a migration's row fails): the second waits, then finds them applied. It
        # waits here, between tries, not inside PostgreSQL: a session blocked on the lock
        # would hold up the migrations' CREATE INDEX CONCURRENTLY, which waits for it.
        while not (await (await conn.execute(MIGRATIONS_LOCK)).fetchone())["locked"]:
            await asyncio.sleep(0.1)
        try:
            await saver.setup()
        finally:
            await conn.execute("SELECT pg_advisory_unlock(4105)")
    return saver


async def open_checkpointer(settings: Settings) -> BaseCheckpointSaver:
    if settings.database_url:
        return await postgres_checkpointer(settings.database_url)
    return await sqlite_checkpointer(settings)

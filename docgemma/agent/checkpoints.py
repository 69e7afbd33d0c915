"""Where conversation state lives: SQLite in the data folder, or PostgreSQL.

With ``DOCGEMMA_DATABASE_URL`` set, LangGraph's Postgres checkpointer keeps every
thread, so several API processes behind a load balancer serve the same sessions.
"""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver

from docgemma.agent.service import sqlite_checkpointer
from docgemma.checkpoint_serde import checkpoint_serializer
from docgemma.config import Settings


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
        # replicas starting together must not both run the saver's migrations: the second
        # waits here, then finds them applied
        await conn.execute("SELECT pg_advisory_lock(4105)")
        try:
            await saver.setup()
        finally:
            await conn.execute("SELECT pg_advisory_unlock(4105)")
    return saver


async def open_checkpointer(settings: Settings) -> BaseCheckpointSaver:
    if settings.database_url:
        return await postgres_checkpointer(settings.database_url)
    return await sqlite_checkpointer(settings)

"""The API's own tables: sessions, their visible history, their approvals, and the thread
names clients chose for sessions (``/query_stream``).

Two thin drivers behind one Protocol: SQLite (``api.sqlite`` in the data folder, a file
of its own so that its connection never contends with the checkpointer's for the
checkpoint file's write lock) and PostgreSQL (``DOCGEMMA_DATABASE_URL``, the same
database as the checkpoints). Queries are written once with ``?``
placeholders; the Postgres driver converts them. Rows come back as dicts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from docgemma.config import Settings

API_DB = "api.sqlite"
Params = Sequence[Any]
Statement = tuple[str, Params]

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS api_sessions (
        id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        profile TEXT NOT NULL,
        mode TEXT NOT NULL,
        title TEXT NOT NULL DEFAULT '',
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS api_sessions_tenant ON api_sessions (tenant, updated_at)",
    """CREATE TABLE IF NOT EXISTS api_messages (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        meta TEXT NOT NULL DEFAULT '{}',
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (session_id, seq))""",
    """CREATE TABLE IF NOT EXISTS api_approvals (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        status TEXT NOT NULL,
        request TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        decided_at DOUBLE PRECISION)""",
    "CREATE INDEX IF NOT EXISTS api_approvals_session ON api_approvals (session_id, status)",
    """CREATE TABLE IF NOT EXISTS api_thread_names (
        tenant TEXT NOT NULL,
        name TEXT NOT NULL,
        session_id TEXT NOT NULL,
        PRIMARY KEY (tenant, name))""",
)


class Database(Protocol):
    async def fetch(self, sql: str, params: Params = ()) -> list[dict[str, Any]]: ...

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; the number of rows it changed."""
        ...

    async def transaction(self, statements: Sequence[Statement]) -> None:
        """All of them or none."""
        ...

    async def close(self) -> None: ...


class SqliteDatabase:
    """One connection; the lock keeps a transaction's statements together."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path) -> SqliteDatabase:
        import aiosqlite

        path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        conn.row_factory = aiosqlite.Row
        await conn.execute("PRAGMA busy_timeout = 10000")
        await conn.execute("PRAGMA journal_mode = WAL")  # readers never wait for the writer
        for sql in SCHEMA:
            await conn.execute(sql)
        return cls(conn)

    async def fetch(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        async with self._lock, self._conn.execute(sql, tuple(params)) as cursor:
            return [dict(row) for row in await cursor.fetchall()]

    async def execute(self, sql: str, params: Params = ()) -> int:
        async with self._lock, self._conn.execute(sql, tuple(params)) as cursor:
            return cursor.rowcount

    async def transaction(self, statements: Sequence[Statement]) -> None:
        async with self._lock:
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    await self._conn.execute(sql, tuple(params))
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            await self._conn.execute("COMMIT")

    async def close(self) -> None:
        await self._conn.close()


def _pg(sql: str) -> str:
    return sql.replace("?", "%s")


class PostgresDatabase:
    def __init__(self, pool: Any) -> None:
        self._pool = pool

    @classmethod
    async def open(cls, url: str) -> PostgresDatabase:
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool

        pool = AsyncConnectionPool(
            url, open=False, max_size=8, kwargs={"autocommit": True, "row_factory": dict_row}
        )
        await pool.open(wait=True)
        async with pool.connection() as conn, conn.transaction():
            # replicas starting together must not race on CREATE TABLE
            await conn.execute("SELECT pg_advisory_xact_lock(4104)")
            for sql in SCHEMA:
                await conn.execute(sql)
        return cls(pool)

    async def fetch(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_pg(sql), tuple(params))
            return list(await cursor.fetchall())

    async def execute(self, sql: str, params: Params = ()) -> int:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_pg(sql), tuple(params))
            return cursor.rowcount

    async def transaction(self, statements: Sequence[Statement]) -> None:
        async with self._pool.connection() as conn, conn.transaction():
            for sql, params in statements:
                await conn.execute(_pg(sql), tuple(params))

    async def close(self) -> None:
        await self._pool.close()


async def open_database(settings: Settings) -> Database:
    if settings.database_url:
        return await PostgresDatabase.open(settings.database_url)
    return await SqliteDatabase.open(Path(settings.data_dir) / API_DB)

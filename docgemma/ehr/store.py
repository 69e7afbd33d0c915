"""SQLite storage for FHIR resources: one JSON row per resource plus a search index.

Every operation opens its own short-lived connection, so the store is safe to use from
the server's worker threads; ``lock`` serialises check-then-write sequences such as
conditional create, which must not race with a concurrent duplicate.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from docgemma.ehr.search_params import index_values

_SCHEMA = """
CREATE TABLE IF NOT EXISTS resources (
    type TEXT NOT NULL, id TEXT NOT NULL, version INTEGER NOT NULL,
    last_updated TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (type, id));
CREATE TABLE IF NOT EXISTS search_index (
    type TEXT NOT NULL, id TEXT NOT NULL, param TEXT NOT NULL, value TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS search_lookup ON search_index (type, param, value);
CREATE INDEX IF NOT EXISTS search_owner ON search_index (type, id);
CREATE TABLE IF NOT EXISTS loaded_bundles (name TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
"""

Clause = tuple[str, list[Any]]
"""An SQL condition on ``r`` (the resources row) and its parameters."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ResourceStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        with self._connect() as con:
            con.execute("PRAGMA journal_mode=WAL")
            con.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        con = sqlite3.connect(self.path, timeout=30)
        try:
            with con:
                yield con
        finally:
            con.close()

    def read(self, resource_type: str, resource_id: str) -> dict[str, Any] | None:
        with self._connect() as con:
            row = con.execute(
                "SELECT data FROM resources WHERE type = ? AND id = ?", (resource_type, resource_id)
            ).fetchone()
        return json.loads(row[0]) if row else None

    def count(self, resource_type: str | None = None) -> int:
        with self._connect() as con:
            if resource_type is None:
                return con.execute("SELECT COUNT(*) FROM resources").fetchone()[0]
            return con.execute(
                "SELECT COUNT(*) FROM resources WHERE type = ?", (resource_type,)
            ).fetchone()[0]

    def search(
        self,
        resource_type: str,
        clauses: Iterable[Clause] = (),
        *,
        sort: tuple[str, bool] | None = None,
        count: int | None = None,
        offset: int = 0,
    ) -> tuple[int, list[dict[str, Any]]]:
        """Total matches and one page of resources; ``sort`` is (param, descending)."""
        where, args = ["r.type = ?"], [resource_type]
        for sql, params in clauses:
            where.append(sql)
            args.extend(params)
        where_sql = " AND ".join(where)
        order, order_args = "r.id", []
        if sort:
            param, descending = sort
            agg = "MAX" if descending else "MIN"
            order = (
                f"(SELECT {agg}(value) FROM search_index s WHERE s.type = r.type AND s.id = r.id "
                f"AND s.param = ?) {'DESC' if descending else 'ASC'}, r.id"
            )
            order_args = [param]
        with self._connect() as con:
            total = con.execute(
                f"SELECT COUNT(*) FROM resources r WHERE {where_sql}", args
            ).fetchone()[0]
            if count == 0:
                return total, []
            rows = con.execute(
                f"SELECT data FROM resources r WHERE {where_sql} ORDER BY {order} LIMIT ? OFFSET ?",
                [*args, *order_args, -1 if count is None else count, offset],
            ).fetchall()
        return total, [json.loads(row[0]) for row in rows]

    def write(self, resources: Iterable[dict[str, Any]]) -> list[tuple[dict[str, Any], bool]]:
        """Insert or replace resources in one transaction; returns (stored, created) pairs.

        Sets ``meta.versionId`` and ``meta.lastUpdated``; the caller has validated them.
        """
        results = []
        stamp = now_iso()
        with self.lock, self._connect() as con:
            for resource in resources:
                rtype, rid = resource["resourceType"], resource["id"]
                row = con.execute(
                    "SELECT version FROM resources WHERE type = ? AND id = ?", (rtype, rid)
                ).fetchone()
                version = row[0] + 1 if row else 1
                stored = {
                    **resource,
                    "meta": {
                        **resource.get("meta", {}),
                        "versionId": str(version),
                        "lastUpdated": stamp,
                    },
                }
                con.execute(
                    "INSERT OR REPLACE INTO resources (type, id, version, last_updated, data) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (rtype, rid, version, stamp, json.dumps(stored, separators=(",", ":"))),
                )
                con.execute("DELETE FROM search_index WHERE type = ? AND id = ?", (rtype, rid))
                con.executemany(
                    "INSERT INTO search_index (type, id, param, value) VALUES (?, ?, ?, ?)",
                    [(rtype, rid, p, v) for p, v in set(index_values(stored))],
                )
                results.append((stored, row is None))
        return results

    def bundle_loaded(self, name: str, sha256: str) -> bool:
        with self._connect() as con:
            row = con.execute(
                "SELECT sha256 FROM loaded_bundles WHERE name = ?", (name,)
            ).fetchone()
        return row is not None and row[0] == sha256

    def mark_bundle_loaded(self, name: str, sha256: str) -> None:
        with self._connect() as con:
            con.execute(
                "INSERT OR REPLACE INTO loaded_bundles (name, sha256) VALUES (?, ?)", (name, sha256)
            )

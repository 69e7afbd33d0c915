"""Sessions, their visible history and their approvals, per tenant.

Session and approval ids are random (never derived from anything a client sent) and
every read is scoped by tenant, so another tenant's id behaves exactly like an unknown
one. A client may also name a session itself (``/query_stream``'s ``thread_id``): the
name is kept beside the random id, per tenant, so two tenants choosing the same name get
two sessions and a name never becomes an id. A turn's messages (and its proposal, if
any) are written in one transaction after the turn finished: a cancelled turn leaves
nothing behind. Claiming an approval is one conditional UPDATE, so of two concurrent
claims (even from two processes) only one wins.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from docgemma.agent.outcome import ApprovalRequest
from docgemma.api.db import Database, Statement
from docgemma.api.models import HistoryMessage, PendingApproval, SessionInfo
from docgemma.experts import Mode

TITLE_CHARS = 60


class ApprovalStatus(StrEnum):
    PENDING = "pending"
    USED = "used"
    DISCARDED = "discarded"
    """A newer message replaced the proposal before anyone decided."""


class ApprovalUsed(Exception):
    """The approval was already decided (or replaced); it cannot be used twice."""


def new_id() -> str:
    return secrets.token_urlsafe(18)


def _session(row: dict[str, Any]) -> SessionInfo:
    return SessionInfo(
        id=row["id"],
        profile=row["profile"],
        mode=Mode(row["mode"]),
        title=row["title"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


class SessionStore:
    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self._clock = clock

    def now(self) -> float:
        return self._clock()

    async def create(
        self,
        tenant: str,
        profile: str,
        mode: Mode,
        session_id: str | None = None,
        *,
        name: str | None = None,
    ) -> SessionInfo:
        """A new session; ``session_id`` adopts a conversation that already has a thread.

        ``name``: a thread name the client chose, unique per tenant. When another request
        created a session under that name first, that session is returned instead.
        """
        now = self._clock()
        info = SessionInfo(
            id=session_id or new_id(),
            profile=profile,
            mode=mode,
            title="",
            created_at=now,
            updated_at=now,
        )
        statements: list[Statement] = [
            (
                "INSERT INTO api_sessions (id, tenant, profile, mode, title, created_at,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (info.id, tenant, profile, mode.value, "", now, now),
            )
        ]
        if name is not None:
            statements.append(
                (
                    "INSERT INTO api_thread_names (tenant, name, session_id) VALUES (?, ?, ?)",
                    (tenant, name, info.id),
                )
            )
        try:
            await self.db.transaction(statements)
        except Exception:  # the name's key taken by a concurrent first request
            if name is not None and (taken := await self.named(tenant, name)) is not None:
                return taken
            raise
        return info

    async def named(self, tenant: str, name: str) -> SessionInfo | None:
        """The tenant's session the client named ``name``, if any."""
        rows = await self.db.fetch(
            "SELECT s.* FROM api_thread_names n JOIN api_sessions s ON s.id = n.session_id"
            " WHERE n.tenant = ? AND n.name = ? AND s.tenant = ?",
            (tenant, name, tenant),
        )
        return _session(rows[0]) if rows else None

    async def get(self, tenant: str, session_id: str) -> SessionInfo | None:
        rows = await self.db.fetch(
            "SELECT * FROM api_sessions WHERE id = ? AND tenant = ?", (session_id, tenant)
        )
        return _session(rows[0]) if rows else None

    async def sessions(self, tenant: str) -> list[SessionInfo]:
        rows = await self.db.fetch(
            "SELECT * FROM api_sessions WHERE tenant = ? ORDER BY updated_at DESC", (tenant,)
        )
        return [_session(r) for r in rows]

    async def delete(self, tenant: str, session_id: str) -> bool:
        if await self.get(tenant, session_id) is None:
            return False
        await self.db.transaction(
            [
                ("DELETE FROM api_messages WHERE session_id = ?", (session_id,)),
                ("DELETE FROM api_approvals WHERE session_id = ?", (session_id,)),
                ("DELETE FROM api_thread_names WHERE session_id = ?", (session_id,)),
                ("DELETE FROM api_sessions WHERE id = ?", (session_id,)),
            ]
        )
        return True

    async def delete_idle(self, tenant: str, before: float) -> int:
        """Delete ``tenant``'s sessions last updated before ``before``; how many."""
        rows = await self.db.fetch(
            "SELECT id FROM api_sessions WHERE tenant = ? AND updated_at < ?", (tenant, before)
        )
        for row in rows:
            await self.delete(tenant, row["id"])
        return len(rows)

    async def history(self, session_id: str) -> list[HistoryMessage]:
        rows = await self.db.fetch(
            "SELECT role, content, meta, created_at FROM api_messages"
            " WHERE session_id = ? ORDER BY seq",
            (session_id,),
        )
        return [
            HistoryMessage(
                role=r["role"],
                content=r["content"],
                created_at=r["created_at"],
                **json.loads(r["meta"]),
            )
            for r in rows
        ]

    async def record_turn(
        self,
        session: SessionInfo,
        messages: list[HistoryMessage],
        proposal: ApprovalRequest | None = None,
    ) -> str | None:
        """Store one finished turn; the new approval id when it ended on a proposal."""
        now = self._clock()
        statements: list[Statement] = []
        for message in messages:
            meta = message.model_dump(
                mode="json", include={"sources", "confidence", "confidence_reason", "notices"}
            )
            statements.append(
                (
                    "INSERT INTO api_messages (session_id, seq, role, content, meta, created_at)"
                    " SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?"
                    " FROM api_messages WHERE session_id = ?",
                    (session.id, message.role, message.content, json.dumps(meta), now, session.id),
                )
            )
        approval_id = None
        if proposal is not None:
            approval_id = new_id()
            statements.append(
                (
                    "INSERT INTO api_approvals (id, session_id, status, request, created_at)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (
                        approval_id,
                        session.id,
                        ApprovalStatus.PENDING,
                        proposal.model_dump_json(),
                        now,
                    ),
                )
            )
        title = session.title or next((m.content for m in messages if m.role == "user"), "")
        statements.append(
            (
                "UPDATE api_sessions SET updated_at = ?, title = ? WHERE id = ?",
                (now, " ".join(title.split())[:TITLE_CHARS], session.id),
            )
        )
        await self.db.transaction(statements)
        return approval_id

    async def discard_pending(self, session_id: str) -> None:
        """A new message replaces an undecided proposal (the agent drops it the same way)."""
        await self.db.execute(
            "UPDATE api_approvals SET status = ?, decided_at = ?"
            " WHERE session_id = ? AND status = ?",
            (ApprovalStatus.DISCARDED, self.now(), session_id, ApprovalStatus.PENDING),
        )

    async def pending(self, session_id: str) -> PendingApproval | None:
        rows = await self.db.fetch(
            "SELECT id, request FROM api_approvals WHERE session_id = ? AND status = ?",
            (session_id, ApprovalStatus.PENDING),
        )
        if not rows:
            return None
        row = rows[0]
        return PendingApproval(
            approval_id=row["id"], request=ApprovalRequest.model_validate_json(row["request"])
        )

    async def approval_session(self, tenant: str, approval_id: str) -> SessionInfo | None:
        """The tenant's session an approval belongs to; None if unknown to this tenant."""
        rows = await self.db.fetch(
            "SELECT s.* FROM api_approvals a JOIN api_sessions s ON s.id = a.session_id"
            " WHERE a.id = ? AND s.tenant = ?",
            (approval_id, tenant),
        )
        return _session(rows[0]) if rows else None

    async def claim(self, approval_id: str) -> None:
        """Mark the approval used; ``ApprovalUsed`` if it was not pending."""
        changed = await self.db.execute(
            "UPDATE api_approvals SET status = ?, decided_at = ? WHERE id = ? AND status = ?",
            (ApprovalStatus.USED, self._clock(), approval_id, ApprovalStatus.PENDING),
        )
        if changed != 1:
            raise ApprovalUsed(approval_id)

"""The API's per-process state and the lookups every route shares.

Errors leave as ``ApiError`` (a status, a readable message and a stable code). An
unknown session and another tenant's session are the same 404, so ids reveal nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Depends, Request

from docgemma.agent.runner import TurnRunner
from docgemma.api.auth import tenant_of
from docgemma.api.models import SessionInfo
from docgemma.api.runtime import ModeBackend, Runtime, WithoutReasoning
from docgemma.api.store import SessionStore
from docgemma.api.turn_setup import TurnSetup
from docgemma.config import Settings
from docgemma.experts import Mode, Profile, Profiles


class ApiError(Exception):
    def __init__(self, status: int, detail: str, code: str) -> None:
        super().__init__(detail)
        self.status, self.detail, self.code = status, detail, code


NO_SESSION = ApiError(404, "No such session.", "session_not_found")


@dataclass
class ApiState:
    settings: Settings
    store: SessionStore
    runtime: Runtime
    profiles: Profiles

    def mode(self, mode: Mode) -> ModeBackend:
        backend = self.runtime.modes.get(mode)
        if backend is None:
            available = ", ".join(m.value for m in self.runtime.modes)
            raise ApiError(
                422,
                f"Mode '{mode.value}' is not available on this server (available: {available}).",
                "mode_unavailable",
            )
        return backend

    def profile(self, name: str | None, tenant: str) -> Profile:
        """The named profile, if ``tenant`` may use it (another tenant's is unknown here)."""
        profile = self.profiles.get(name, tenant)
        if profile is None:
            names = ", ".join(p.name for p in self.profiles.for_tenant(tenant))
            raise ApiError(422, f"Unknown profile '{name}' (profiles: {names}).", "unknown_profile")
        return profile

    def profile_for_mode(self, mode: Mode, tenant: str) -> Profile:
        """The tenant's first profile in ``mode`` (the mode must be served here)."""
        self.mode(mode)
        found = next((p for p in self.profiles.for_tenant(tenant) if p.mode is mode), None)
        if found is None:
            raise ApiError(422, f"No profile runs the {mode.value} mode.", "mode_unavailable")
        return found

    async def backend(self, session: SessionInfo, setup: TurnSetup) -> TurnRunner:
        profile = self.profiles.get(session.profile) or self.profiles.default
        if session.mode is Mode.TRIAGE and not setup.rag:
            raise ApiError(
                422,
                "Triage always searches the condition pages: enable_rag=false is not "
                "available in triage mode.",
                "rag_required",
            )
        backend = await self.mode(session.mode).for_profile(profile, setup)
        return backend if profile.stream_reasoning else WithoutReasoning(backend)

    async def session(self, tenant: str, session_id: str) -> SessionInfo:
        session = await self.store.get(tenant, session_id)
        if session is None:
            raise NO_SESSION
        return session


def api_state(request: Request) -> ApiState:
    return request.app.state.api


Tenant = Depends(tenant_of)
State = Depends(api_state)

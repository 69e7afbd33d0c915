"""API keys → tenants. Only SHA-256 digests of the keys are configured (hashed at rest).

A request names its key in ``Authorization: Bearer <key>`` or ``X-API-Key``; no key
or an unknown one is 401.
"""

from __future__ import annotations

import hashlib
import hmac

from fastapi import HTTPException, Request, status


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class KeyRing:
    def __init__(self, digests: dict[str, str]) -> None:
        self._digests = {d.lower(): tenant for d, tenant in digests.items()}

    def tenant(self, key: str) -> str | None:
        digest = hash_key(key)
        found = None
        for known, tenant in self._digests.items():  # compare all, in constant time each
            if hmac.compare_digest(known, digest):
                found = tenant
        return found


def presented_key(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.headers.get("x-api-key") or None


def tenant_of(request: Request) -> str:
    """The FastAPI dependency every tenant-scoped route takes."""
    keys: KeyRing = request.app.state.keys
    key = presented_key(request)
    tenant = keys.tenant(key) if key else None
    if tenant is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            detail="A valid API key is required (Authorization: Bearer <key>).",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return tenant

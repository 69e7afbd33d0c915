"""Who may use the app, and who approves: sign-in users, a trusted proxy header, or open demo.

Three modes (``DOCGEMMA_AUTH_MODE``; SECURITY.md has the threat model):

- ``users``: Gradio's login page checks names against ``DOCGEMMA_AUTH_USERS``, whose
  passwords are stored only as salted scrypt hashes (``python -m docgemma.auth``
  makes one). The mounted ``/fhir`` takes the same users with HTTP Basic.
- ``header``: a sign-in proxy (OAuth2/OIDC) in front of the app names the user in
  ``DOCGEMMA_AUTH_HEADER``; requests without it are refused. Only safe when the app
  is reachable through that proxy alone.
- ``open``: no sign-in, for the embedded synthetic EHR only (a public demo Space, a
  local ``make app``); the page says so, approvers are typed names, and ``/fhir``
  answers loopback clients only. It refuses to start with an external FHIR server.

In every mode the agent's own EHR client passes ``/fhir`` with the random bearer token
the app gave it; writes still need that token (the FHIR server's own gate).

Sign-in attempts (the page's login and ``/fhir``'s HTTP Basic) are throttled per user
name and per client address: after a few failures each further attempt must wait, the
wait doubling with every failure (``SignInThrottle``).
"""

from __future__ import annotations

import argparse
import base64
import binascii
import getpass
import hashlib
import hmac
import logging
import math
import secrets
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docgemma.config import Settings
from docgemma.ehr.errors import operation_outcome

log = logging.getLogger(__name__)
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
OPEN_BANNER = (
    "🧪 **Open demo mode** — no sign-in; synthetic patients only. Anyone who can reach "
    "this page can read and approve; approver names are typed, not verified."
)


class Mode(StrEnum):
    OPEN = "open"
    USERS = "users"
    HEADER = "header"


class AccessConfigError(RuntimeError):
    """The access settings are unsafe or incomplete; the app refuses to start."""


def hash_password(password: str, salt: bytes | None = None) -> str:
    """``scrypt$n$r$p$salt$hash`` (base64), what ``DOCGEMMA_AUTH_USERS`` stores."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32
    )
    parts = [str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P), _b64(salt), _b64(digest)]
    return "scrypt$" + "$".join(parts)


def verify_password(password: str, stored: str) -> bool:
    """Constant-time check against a stored hash; a malformed hash never matches."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest, validate=True)
        actual = hashlib.scrypt(
            password.encode(),
            salt=base64.b64decode(salt, validate=True),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
        )
    except (ValueError, binascii.Error):
        return False
    return hmac.compare_digest(actual, expected)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@dataclass
class SignInThrottle:
    """Backoff after failed sign-ins, per user name and per client address.

    ``free`` failures within ``window_s`` cost nothing; after that the next attempt must
    wait ``base_s`` since the last failure, doubled for each further failure (at most
    ``cap_s``). An attempt made while waiting is refused without checking the password.
    A success clears the user's failures, never the address's (one valid account must
    not reset the guessing budget of an address).
    """

    free: int = 5
    base_s: float = 1.0
    cap_s: float = 900.0
    window_s: float = 3600.0
    clock: Callable[[], float] = time.monotonic
    max_keys: int = 10_000
    _failures: dict[str, list[float]] = field(default_factory=dict)

    def wait_s(self, user: str, address: str) -> float:
        """Seconds before ``user`` may try again from ``address`` (0: now)."""
        now = self.clock()
        return max(self._wait(f"user:{user}", now), self._wait(f"addr:{address}", now))

    def record(self, user: str, address: str, ok: bool) -> None:
        if ok:
            self._failures.pop(f"user:{user}", None)
            return
        now = self.clock()
        if len(self._failures) >= self.max_keys:  # an address or name spray: keep memory bounded
            self._failures = {
                k: t for k, t in self._failures.items() if t and now - t[-1] < self.window_s
            }
        for key in (f"user:{user}", f"addr:{address}"):
            self._failures.setdefault(key, []).append(now)

    def _wait(self, key: str, now: float) -> float:
        recent = [t for t in self._failures.get(key, ()) if now - t < self.window_s]
        if key in self._failures:
            self._failures[key] = recent
        if len(recent) < self.free:
            return 0.0
        delay = min(self.cap_s, self.base_s * 2 ** (len(recent) - self.free))
        return max(0.0, recent[-1] + delay - now)


def too_many_sign_ins(wait_s: float) -> JSONResponse:
    seconds = max(1, math.ceil(wait_s))
    return JSONResponse(
        {"detail": f"Too many failed sign-ins. Please wait {seconds} s and try again."},
        status_code=429,
        headers={"Retry-After": str(seconds)},
    )


@dataclass(frozen=True)
class Access:
    """The resolved access policy of one running app."""

    mode: Mode
    users: Mapping[str, str] = field(default_factory=dict)
    header: str | None = None
    embedded_ehr: bool = True
    """The app serves its own synthetic EHR (not a real record behind DOCGEMMA_FHIR_URL)."""
    throttle: SignInThrottle = field(default_factory=SignInThrottle, compare=False)

    @classmethod
    def from_settings(cls, settings: Settings, *, embedded_ehr: bool) -> Access:
        """Resolve ``auto`` and refuse unsafe combinations with a message saying what to set."""
        chosen = settings.auth_mode
        if chosen == "auto":
            chosen = "open"
            if settings.auth_users or settings.auth_header:
                chosen = "users" if settings.auth_users else "header"
        mode = Mode(chosen)
        if mode is Mode.USERS and not settings.auth_users:
            raise AccessConfigError(
                "DOCGEMMA_AUTH_MODE=users needs DOCGEMMA_AUTH_USERS, e.g. "
                '{"dr.lee": "<hash printed by python -m docgemma.auth>"}'
            )
        if mode is Mode.HEADER and not (settings.auth_header or "").strip():
            raise AccessConfigError(
                "DOCGEMMA_AUTH_MODE=header needs DOCGEMMA_AUTH_HEADER (e.g. X-Forwarded-User)"
            )
        if mode is Mode.OPEN and not embedded_ehr:
            raise AccessConfigError(
                "Open demo mode is only allowed with the embedded synthetic EHR; with "
                "DOCGEMMA_FHIR_URL set, configure DOCGEMMA_AUTH_USERS or DOCGEMMA_AUTH_HEADER"
            )
        header = (settings.auth_header or "").strip() or None
        throttle = SignInThrottle(
            free=settings.sign_in_free_attempts, base_s=settings.sign_in_backoff_seconds
        )
        return cls(mode, dict(settings.auth_users), header, embedded_ehr, throttle)

    @property
    def open(self) -> bool:
        return self.mode is Mode.OPEN

    def check_login(self, username: str, password: str) -> bool:
        stored = self.users.get(username)
        if stored is None:
            verify_password(password, hash_password("-"))  # same cost for unknown names
            return False
        return verify_password(password, stored)

    def header_user(self, request: Request) -> str | None:
        """The proxy-asserted user (Gradio's ``auth_dependency``); None refuses the request."""
        if self.header is None:
            return None
        return request.headers.get(self.header, "").strip() or None

    def gradio_kwargs(self) -> dict[str, Any]:
        """What ``gr.mount_gradio_app`` needs for this mode."""
        if self.mode is Mode.USERS:
            return {"auth": self.check_login, "auth_message": "Sign in to DocGemma"}
        if self.mode is Mode.HEADER:
            return {"auth_dependency": self.header_user}
        return {}

    def fhir_reader(self, request: Request) -> bool:
        """May this request (without the agent's token) read the mounted FHIR server?"""
        if self.mode is Mode.HEADER:
            return self.header_user(request) is not None
        if self.mode is Mode.USERS:
            scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() != "basic":
                return False
            try:
                name, _, password = base64.b64decode(encoded.strip()).decode().partition(":")
            except (ValueError, UnicodeDecodeError):
                return False
            address = request.client.host if request.client else ""
            if self.throttle.wait_s(name, address) > 0:
                return False
            ok = self.check_login(name, password)
            self.throttle.record(name, address, ok)
            return ok
        client = request.client.host if request.client else ""
        return client in LOOPBACK


class SignInGuard:
    """In front of the page's ``POST /login``: a throttled user or address gets 429 before
    the password is checked; the login's answer (200 or not) is recorded."""

    MAX_BODY = 64 * 1024

    def __init__(self, app: ASGIApp, throttle: SignInThrottle) -> None:
        self.app, self.throttle = app, throttle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not (
            scope["type"] == "http"
            and scope["method"] == "POST"
            and scope["path"].rstrip("/").endswith("/login")
        ):
            await self.app(scope, receive, send)
            return
        body = b""
        more = True
        while more and len(body) <= self.MAX_BODY:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        form = await Request(scope, replay).form()
        user = str(form.get("username") or "").strip()
        address = scope["client"][0] if scope.get("client") else ""
        wait = self.throttle.wait_s(user, address)
        if wait > 0:
            log.warning("sign-in throttled (%.0f s to wait)", wait)
            await too_many_sign_ins(wait)(scope, receive, send)
            return
        replayed = False
        status: list[int] = []

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)

        await self.app(scope, replay, watch)
        if status:
            self.throttle.record(user, address, status[0] == 200)


class GuardedFHIR:
    """The mounted FHIR app behind the access policy; the agent passes with its token."""

    def __init__(self, app: ASGIApp, access: Access, agent_token: str) -> None:
        self.app, self.access, self._token = app, access, agent_token.encode()

    def _agent(self, request: Request) -> bool:
        scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and secrets.compare_digest(
            credentials.strip().encode(), self._token
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            request = Request(scope)
            if not (self._agent(request) or self.access.fhir_reader(request)):
                log.warning("refused FHIR %s %s", request.method, request.url.path)
                await self._refusal()(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _refusal(self) -> JSONResponse:
        reason = {
            Mode.OPEN: "In open demo mode this FHIR server answers only on this machine",
            Mode.USERS: "Sign in with a DocGemma user (HTTP Basic) to read this FHIR server",
            Mode.HEADER: "Reach this FHIR server through the sign-in proxy",
        }[self.access.mode]
        basic = self.access.mode is Mode.USERS
        headers = {"WWW-Authenticate": 'Basic realm="fhir"'} if basic else {}
        return JSONResponse(
            operation_outcome("login", reason),
            status_code=401,
            headers=headers,
            media_type="application/fhir+json",
        )


def main(argv: list[str] | None = None) -> None:
    """``python -m docgemma.auth [name]``: print a password hash for DOCGEMMA_AUTH_USERS."""
    parser = argparse.ArgumentParser(description="Hash a DocGemma sign-in password")
    parser.add_argument("name", nargs="?", default="clinician", help="the user's sign-in name")
    args = parser.parse_args(argv)
    password = getpass.getpass(f"Password for {args.name}: ")
    if len(password) < 8 or password != getpass.getpass("Again: "):
        sys.exit("Passwords must match and have at least 8 characters; nothing printed.")
    sys.stdout.write(f'DOCGEMMA_AUTH_USERS=\'{{"{args.name}": "{hash_password(password)}"}}\'\n')


if __name__ == "__main__":
    main()

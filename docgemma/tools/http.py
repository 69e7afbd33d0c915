"""The one HTTP client of the remote tools and the one place remote failures are mapped.

Every remote call goes through ``get_json`` (or ``get_text`` for an XML service): it turns
timeouts, connection errors, HTTP status codes and unreadable bodies into a ``ToolFailure``
carrying a ``ToolErrorType``. ``failure_outcome`` turns that into the pre-formatted,
clinician-readable ``ToolOutcome``: the raw detail
goes to ``error_detail`` only, so no model ever sees a status code or a stack trace.

A service that cannot be reached is treated as offline for a cool-down (a circuit
breaker kept with the app's shared client): later calls fail at once with
``ServiceOffline`` instead of waiting on the network every turn, and tools answer
from their offline source or with the "could not be used" result.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx

from docgemma.tools.base import ToolContext, ToolOutcome
from docgemma.tools.outcomes import Note, ToolErrorType, error_message

log = logging.getLogger(__name__)

USER_AGENT = "DocGemma/0.1 (open clinical decision support; +https://github.com/docgemma)"


class ToolFailure(Exception):
    """A classified failure inside a tool; becomes a ``ToolOutcome`` at the tool's edge."""

    def __init__(
        self,
        error_type: ToolErrorType,
        detail: str,
        message: str | None = None,
        suggestions: list[str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.error_type = error_type
        self.detail = detail
        self.message = message
        """A clinician-readable message replacing the generic template, when one says more."""
        self.suggestions = suggestions or []
        """The choices to offer the clinician (e.g. the products an ambiguous name covers)."""


class ServiceOffline(ToolFailure):
    """A service that cannot be reached now, or could not be within its cool-down.

    ``blocked``: the circuit breaker is open, so a retry in this turn would fail without a
    request; the error type (``OUT_OF_SERVICE``) tells the error handler not to try.
    """

    def __init__(self, detail: str, *, blocked: bool = False) -> None:
        kind = ToolErrorType.OUT_OF_SERVICE if blocked else ToolErrorType.SERVICE_UNAVAILABLE
        super().__init__(kind, detail)


class CircuitBreaker:
    """Per service (host): open for ``cooldown_s`` after a connection failure, then retried."""

    def __init__(self, cooldown_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._open_until: dict[str, float] = {}

    def is_open(self, service: str) -> bool:
        return self._clock() < self._open_until.get(service, float("-inf"))

    def trip(self, service: str) -> None:
        log.warning("%s unreachable; treated as offline for %.0f s", service, self.cooldown_s)
        self._open_until[service] = self._clock() + self.cooldown_s

    def reset(self, service: str) -> None:
        if self._open_until.pop(service, None) is not None:
            log.info("%s reachable again", service)


_BREAKERS: weakref.WeakKeyDictionary[httpx.AsyncClient, CircuitBreaker] = (
    weakref.WeakKeyDictionary()
)


def attach_breaker(client: httpx.AsyncClient, breaker: CircuitBreaker) -> httpx.AsyncClient:
    """Give ``client`` a circuit breaker; it lives as long as the client does."""
    _BREAKERS[client] = breaker
    return client


def create_client(settings: Any) -> httpx.AsyncClient:
    """The app's shared client for openFDA, Europe PMC and ClinicalTrials.gov."""
    client = httpx.AsyncClient(
        timeout=httpx.Timeout(settings.tool_timeout_s),
        headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
        follow_redirects=True,
    )
    return attach_breaker(client, CircuitBreaker(settings.offline_cooldown_s))


@asynccontextmanager
async def client_for(ctx: ToolContext):
    """``ctx.http`` when the app provides one; otherwise a client for this call only."""
    if ctx.http is not None:
        yield ctx.http
        return
    log.debug("no shared HTTP client in the tool context; using a short-lived one")
    async with create_client(ctx.settings) as client:
        yield client


async def get_json(
    client: httpx.AsyncClient,
    url: str,
    params: Mapping[str, Any] | None = None,
    *,
    deadline_s: float = 10.0,
    not_found: ToolErrorType = ToolErrorType.NOT_FOUND,
) -> Any:
    """GET ``url`` and return the decoded JSON body, or raise a classified ``ToolFailure``.

    A connection failure raises ``ServiceOffline`` and, with the client's circuit
    breaker, makes the following calls to that host raise it without a request.
    """
    response = await _get(client, url, params, deadline_s=deadline_s, not_found=not_found)
    try:
        return response.json()
    except ValueError as exc:
        raise ToolFailure(
            ToolErrorType.MALFORMED_RESPONSE, f"unreadable JSON from {url}: {response.text[:500]!r}"
        ) from exc


async def get_text(
    client: httpx.AsyncClient,
    url: str,
    params: Mapping[str, Any] | None = None,
    *,
    deadline_s: float = 10.0,
    max_chars: int = 2_000_000,
) -> str:
    """GET ``url`` and return the body as text (an XML service), failures as ``get_json``'s."""
    response = await _get(
        client, url, params, deadline_s=deadline_s, accept="application/xml, text/xml"
    )
    text = response.text
    if len(text) > max_chars:
        raise ToolFailure(
            ToolErrorType.MALFORMED_RESPONSE, f"{len(text)} characters from {url}: too long"
        )
    return text


async def _get(
    client: httpx.AsyncClient,
    url: str,
    params: Mapping[str, Any] | None,
    *,
    deadline_s: float,
    not_found: ToolErrorType = ToolErrorType.NOT_FOUND,
    accept: str | None = None,
) -> httpx.Response:
    """One GET under the deadline and the circuit breaker; an error status raises."""
    service = httpx.URL(url).host
    breaker = _BREAKERS.get(client)
    if breaker is not None and breaker.is_open(service):
        raise ServiceOffline(
            f"{service}: not called, unreachable in the last cool-down", blocked=True
        )
    try:
        async with asyncio.timeout(deadline_s):
            headers = {"Accept": accept} if accept else None
            response = await client.get(url, params=params, headers=headers)
    except (TimeoutError, httpx.TimeoutException) as exc:
        raise ToolFailure(ToolErrorType.TIMEOUT, f"{url}: timed out ({exc!r})") from exc
    except httpx.TransportError as exc:
        blocked = False
        if breaker is not None:
            breaker.trip(service)
            blocked = breaker.is_open(service)
        raise ServiceOffline(f"{url}: unreachable ({exc!r})", blocked=blocked) from exc
    if breaker is not None:
        breaker.reset(service)

    status = response.status_code
    body = response.text[:500]
    if status == 429:
        raise ToolFailure(ToolErrorType.RATE_LIMIT, f"HTTP 429 from {url}: {body}")
    if status >= 500:
        raise ToolFailure(ToolErrorType.SERVER_ERROR, f"HTTP {status} from {url}: {body}")
    if status == 404:
        raise ToolFailure(not_found, f"HTTP 404 from {url}: {body}")
    if status in (401, 403):
        raise ToolFailure(ToolErrorType.SERVICE_UNAVAILABLE, f"HTTP {status} from {url}: {body}")
    if status >= 400:
        raise ToolFailure(ToolErrorType.INVALID_ARGS, f"HTTP {status} from {url}: {body}")
    return response


def error_outcome(
    error_type: ToolErrorType,
    label: str,
    *,
    entity: str | None = None,
    detail: str | None = None,
    message: str | None = None,
    missing_fields: list[str] | None = None,
    suggestions: list[str] | None = None,
) -> ToolOutcome:
    """The pre-formatted outcome of a failed call: a template unless a clearer message is given."""
    formatted = message or error_message(
        error_type, label, entity=entity, fields=missing_fields or ()
    )
    if detail:
        log.info("%s failed (%s): %s", label, error_type.value, detail)
    return ToolOutcome(
        formatted=formatted,
        error_type=error_type,
        error_detail=detail,
        entity=entity,
        missing_fields=list(missing_fields or []),
        suggestions=list(suggestions or []),
    )


def failure_outcome(failure: ToolFailure, label: str, entity: str | None = None) -> ToolOutcome:
    return error_outcome(
        failure.error_type,
        label,
        entity=entity,
        detail=failure.detail,
        message=failure.message,
        suggestions=failure.suggestions,
    )


def offline_outcome(
    label: str,
    service: str,
    entity: str | None = None,
    failure: ServiceOffline | None = None,
) -> ToolOutcome:
    """The result of a tool with no offline source: offline by configuration, or, given the
    ``failure``, because ``service`` could not be reached (retryable unless its breaker is
    open)."""
    if failure is None:
        kind, detail = ToolErrorType.OUT_OF_SERVICE, f"offline mode: {service} not called"
        why = f"it needs {service}, which this installation is not connected to"
    else:
        kind, detail = failure.error_type, failure.detail
        why = "its online source cannot be reached at the moment"
    return error_outcome(
        kind,
        label,
        entity=entity,
        detail=detail,
        message=error_message(Note.NO_SOURCE, label, reason=why),
    )


def unexpected_outcome(exc: BaseException, label: str, entity: str | None = None) -> ToolOutcome:
    """Last line of defence: a bug inside a tool still ends as a typed, clean outcome."""
    log.exception("%s failed unexpectedly", label)
    return error_outcome(
        ToolErrorType.SERVER_ERROR, label, entity=entity, detail=f"{type(exc).__name__}: {exc}"
    )

"""One HTTP client per remote model, with a deadline and retries around every call.

Transient failures (429, 5xx, timeouts, refused connections) are retried with
exponential backoff, all inside one deadline per call, then raised as
``ModelUnavailable`` so the agent ends the turn with its fallback instead of hanging.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx

from docgemma.llm.errors import ModelUnavailable

log = logging.getLogger(__name__)

_TRANSIENT = (TimeoutError, httpx.TimeoutException, httpx.TransportError)


class RequestRejected(ModelUnavailable):
    """The server answered 4xx: retrying cannot help (wrong dialect, prompt too long, bad key)."""

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


class RetryingClient:
    def __init__(
        self,
        base_url: str,
        *,
        api_key: str,
        timeout_s: float,
        max_retries: int,
        backoff_s: float = 0.25,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self._client = httpx.AsyncClient(
            base_url=base_url,
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=httpx.Timeout(timeout_s),
            transport=transport,
        )

    async def _backoff(
        self, attempt: int, problem: str, deadline: float, retry_after: str | None
    ) -> None:
        """Sleep before the next attempt, or raise when retries or the deadline are spent."""
        remaining = deadline - time.monotonic()
        if attempt > self.max_retries or remaining <= 0:
            raise ModelUnavailable(
                f"{self.base_url} unavailable after {attempt} attempt(s): {problem}"
            )
        delay = self.backoff_s * 2 ** (attempt - 1)
        if retry_after and retry_after.replace(".", "", 1).isdigit():
            delay = max(delay, float(retry_after))
        log.warning("LLM server %s: %s; retry %d in %.2fs", self.base_url, problem, attempt, delay)
        await asyncio.sleep(min(delay, remaining))

    def _check(self, response: httpx.Response, body: str) -> str | None:
        """A retryable problem description, ``None`` on success; raises on a 4xx rejection."""
        status = response.status_code
        if status == 429 or status >= 500:
            return f"HTTP {status}: {body[:200]}" if body else f"HTTP {status}"
        if status >= 400:
            raise RequestRejected(
                f"{self.base_url} rejected the request (HTTP {status}): {body[:300]}", status
            )
        return None

    async def post_json(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout_s
        attempt = 0
        while True:
            attempt += 1
            retry_after = None
            try:
                async with asyncio.timeout(max(deadline - time.monotonic(), 0.001)):
                    response = await self._client.post(path, json=payload)
                problem = self._check(response, response.text)
                if problem is None:
                    return response.json()
                retry_after = response.headers.get("retry-after")
            except _TRANSIENT as exc:
                problem = f"{type(exc).__name__}: {exc}".rstrip(": ")
            await self._backoff(attempt, problem, deadline, retry_after)

    async def events(self, path: str, payload: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """Server-sent events as JSON objects; retries only until the first byte arrives."""
        deadline = time.monotonic() + self.timeout_s
        attempt = 0
        while True:
            attempt += 1
            retry_after = None
            try:
                async with asyncio.timeout(max(deadline - time.monotonic(), 0.001)):
                    request = self._client.build_request(
                        "POST", path, json={**payload, "stream": True}
                    )
                    response = await self._client.send(request, stream=True)
                    if response.status_code >= 400:
                        body = (await response.aread()).decode(errors="replace")
                        await response.aclose()
                        problem = self._check(response, body)
                        retry_after = response.headers.get("retry-after")
            except _TRANSIENT as exc:
                problem = f"{type(exc).__name__}: {exc}".rstrip(": ")
            else:
                if response.status_code < 400:
                    break
            await self._backoff(attempt, problem, deadline, retry_after)
        try:
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                yield json.loads(data)
        except (httpx.TimeoutException, httpx.TransportError) as exc:
            raise ModelUnavailable(
                f"{self.base_url} stream broke off: {type(exc).__name__}"
            ) from exc
        finally:
            await response.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

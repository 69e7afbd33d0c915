"""A small client for the DocGemma API (httpx), used by the tests, notebooks and scripts.

``stream_chat`` and ``decide`` parse the Server-Sent Events into the typed models of
``docgemma.api.stream_events``; ``Turn`` gathers one stream into the answer, the
reasoning, the steps and the final ``done`` event.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from docgemma.api.stream_events import (
    STREAM_EVENT,
    ApprovalRequiredEvent,
    DoneEvent,
    ErrorEvent,
    SourcesEvent,
    StepEvent,
    StreamEvent,
    ThinkingEvent,
    TokenEvent,
)


class ApiFailure(Exception):
    def __init__(self, status: int, detail: str, code: str) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status, self.detail, self.code = status, detail, code


async def _fail(response: httpx.Response) -> None:
    if response.is_success:
        return
    await response.aread()
    try:
        body = response.json()
    except json.JSONDecodeError:
        body = {"detail": response.text, "code": "error"}
    raise ApiFailure(response.status_code, body.get("detail", ""), body.get("code", "error"))


async def parse_sse(lines: AsyncIterator[str]) -> AsyncIterator[StreamEvent]:
    """SSE frames → events: ``data:`` lines joined until a blank line; comments skipped."""
    data: list[str] = []
    async for line in lines:
        if line == "":
            if data:
                yield STREAM_EVENT.validate_json("\n".join(data))
            data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        yield STREAM_EVENT.validate_json("\n".join(data))


@dataclass
class Turn:
    session_id: str = ""
    events: list[StreamEvent] = field(default_factory=list)

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def answer(self) -> str:
        return "".join(e.text for e in self.of(TokenEvent))

    @property
    def thinking(self) -> str:
        return "".join(e.text for e in self.of(ThinkingEvent))

    @property
    def steps(self) -> list[StepEvent]:
        return self.of(StepEvent)

    @property
    def done(self) -> DoneEvent | None:
        return next(iter(self.of(DoneEvent)), None)

    @property
    def approval(self) -> ApprovalRequiredEvent | None:
        return next(iter(self.of(ApprovalRequiredEvent)), None)

    @property
    def sources(self) -> SourcesEvent | None:
        return next(iter(self.of(SourcesEvent)), None)

    @property
    def error(self) -> ErrorEvent | None:
        return next(iter(self.of(ErrorEvent)), None)


class DocGemmaClient:
    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        timeout: float = 120.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """``transport``: e.g. ``httpx.ASGITransport(app)`` to talk to an app in this process."""
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.http = httpx.AsyncClient(
            base_url=base_url, headers=headers, timeout=timeout, transport=transport
        )

    async def __aenter__(self) -> DocGemmaClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.http.aclose()

    async def _events(self, url: str, body: dict[str, Any], turn: Turn) -> AsyncIterator[Any]:
        async with self.http.stream("POST", url, json=body) as response:
            await _fail(response)
            turn.session_id = response.headers.get("x-docgemma-session", "")
            async for event in parse_sse(response.aiter_lines()):
                turn.events.append(event)
                yield event

    def stream_chat(self, message: str, turn: Turn | None = None, **fields: Any) -> Any:
        """Events of one turn as they arrive (``turn`` collects them); fields: session_id…"""
        body = {"message": message, **{k: v for k, v in fields.items() if v is not None}}
        return self._events("/v1/chat/stream", body, turn if turn is not None else Turn())

    async def chat(self, message: str, **fields: Any) -> Turn:
        turn = Turn()
        async for _ in self.stream_chat(message, turn, **fields):
            pass
        return turn

    async def decide(self, approval_id: str, action: str, **fields: Any) -> Turn:
        turn = Turn()
        body = {"action": action, **{k: v for k, v in fields.items() if v is not None}}
        async for _ in self._events(f"/v1/approvals/{approval_id}", body, turn):
            pass
        return turn

    async def _get(self, url: str, **params: Any) -> Any:
        response = await self.http.get(url, params=params)
        await _fail(response)
        return response.json() if "json" in response.headers.get("content-type", "") else response

    async def history(self, session_id: str) -> dict[str, Any]:
        return await self._get(f"/v1/sessions/{session_id}/history")

    async def sessions(self) -> list[dict[str, Any]]:
        return await self._get("/v1/sessions")

    async def profiles(self) -> list[dict[str, Any]]:
        return await self._get("/v1/profiles")

    async def export(self, session_id: str, format: str = "markdown") -> str:
        response = await self.http.get(
            f"/v1/sessions/{session_id}/export", params={"format": format}
        )
        await _fail(response)
        return response.text

    async def delete(self, session_id: str) -> None:
        await _fail(await self.http.delete(f"/v1/sessions/{session_id}"))

    async def health(self) -> dict[str, Any]:
        return await self._get("/health")

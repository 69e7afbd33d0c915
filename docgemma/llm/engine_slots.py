"""The server engine kind: ``llama-server`` with parallel slots, supervised like the worker.

Everything the app keeps is ``EngineBackend``'s (the chat template, the tokenizer, the
grammar text of each schema, the restart and health behaviour); only the transport
differs. Each call goes to the server's OpenAI-compatible ``/v1/completions`` as the
``openai`` backend's llama.cpp dialect sends it (a rendered prompt, the schema's grammar,
a seed), over the private Unix socket of the engine process. Several calls run at once,
one per slot, batched at every decoding step.

A call that had received nothing when the engine died is sent once more to the new
engine; a stream that had shown text ends with ``ModelRestarted``, as with the worker.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel

from docgemma.engine_build import SERVER_BUILD_COMMAND
from docgemma.llm.engine_backend import EngineBackend
from docgemma.llm.engine_process import ModelRestarted, exit_reason
from docgemma.llm.errors import ConfigurationError, ModelUnavailable, SchemaNotSupported
from docgemma.llm.llamacpp import call_seed
from docgemma.llm.llamacpp_sampling import checked_grammar
from docgemma.llm.openai_request import completion_stop_fields, usage_of

log = logging.getLogger(__name__)

SAMPLING = {"top_k": 40, "top_p": 0.95, "min_p": 0.05, "repeat_penalty": 1.0}
"""llama-cpp-python's completion defaults, sent explicitly: the server's own may differ."""
_CONNECT_TIMEOUT_S = 10.0


class SlotsEngineBackend(EngineBackend):
    worker_module = "docgemma.llm.engine_server"

    def __init__(
        self,
        model_path: Path,
        *,
        server_binary: Path | None,
        slots: int = 4,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        seed: int = 0,
        chat_format_name: str = "auto",
        start_timeout_s: float = 300.0,
    ) -> None:
        if server_binary is None or not Path(server_binary).is_file():
            raise ConfigurationError(
                "the server engine needs llama-server, which is not built; build it with "
                f"`{SERVER_BUILD_COMMAND}` (minutes), or set DOCGEMMA_ENGINE=worker"
            )
        self.slots = slots
        super().__init__(
            model_path,
            n_ctx=n_ctx,
            n_threads=n_threads,
            seed=seed,
            chat_format_name=chat_format_name,
            start_timeout_s=start_timeout_s,
            engine_arguments=["--binary", str(server_binary), "--slots", str(slots)],
        )
        self._http = httpx.AsyncClient(
            transport=httpx.AsyncHTTPTransport(uds=self.engine.socket_path),
            base_url="http://engine",
            timeout=httpx.Timeout(None, connect=_CONNECT_TIMEOUT_S),
        )

    # ── schemas: checked here, with the same llama.cpp grammar parser the server runs ──
    def prepare(self, schemas: Sequence[type[BaseModel]]) -> None:
        for schema in schemas:
            checked_grammar(self._vocab._model, self._grammar(schema), schema.__name__)

    # ── calls ──
    def _payload(self, request: dict[str, Any], *, stream: bool) -> dict[str, Any]:
        prompt, temperature = request["prompt"], request["temperature"]
        payload: dict[str, Any] = {
            "prompt": prompt,
            "max_tokens": request["max_tokens"],
            "temperature": temperature,
            "seed": call_seed(self.seed, prompt, temperature),
            "cache_prompt": True,
            "stream": stream,
            **SAMPLING,
            **completion_stop_fields(request.get("stop") or (), "llamacpp"),
        }
        if request.get("grammar"):
            payload["grammar"] = request["grammar"]
        return payload

    async def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        """One completion, answered whole; sent once more if the engine died before answering."""
        payload = self._payload(request, stream=False)
        for attempt in (1, 2):
            await self.engine.ready()
            proc = self.engine.current()
            start = time.perf_counter()
            try:
                response = await self._http.post("/v1/completions", json=payload)
            except httpx.TransportError as exc:
                await self._after_transport_error(exc, proc, last=attempt == 2)
                continue
            data = _checked(response.status_code, response.text)
            choice = data["choices"][0]
            return {
                "text": choice.get("text") or "",
                "usage": usage_of(data).model_dump(),
                "latency_s": time.perf_counter() - start,
                "finish_reason": choice.get("finish_reason"),
            }
        raise AssertionError("unreachable")

    async def _stream(
        self, prompt: str, temperature: float, max_tokens: int, stop: Sequence[str], chars: int
    ) -> AsyncIterator[str]:
        request = {
            "prompt": prompt,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "stop": list(stop),
        }
        payload = self._payload(request, stream=True)
        for attempt in (1, 2):
            await self.engine.ready()
            proc = self.engine.current()
            given = False
            try:
                async with self._http.stream("POST", "/v1/completions", json=payload) as response:
                    if response.status_code >= 400:
                        body = (await response.aread()).decode(errors="replace")
                        _checked(response.status_code, body)
                    async for line in response.aiter_lines():
                        if not line.startswith("data:"):
                            continue
                        data = line[5:].strip()
                        if data == "[DONE]":
                            return
                        for choice in json.loads(data).get("choices") or ():
                            if choice.get("text"):
                                given = True
                                yield choice["text"]
                raise httpx.RemoteProtocolError("the stream ended before its last event")
            except httpx.TransportError as exc:
                await self._after_transport_error(exc, proc, last=given or attempt == 2)

    async def _after_transport_error(
        self, exc: httpx.TransportError, proc: Any, last: bool
    ) -> None:
        """``ModelRestarted`` when the engine died and the call cannot be sent again; returns
        (so the caller sends it again) when it died before answering; otherwise the engine is
        alive and refused the call."""
        if not await asyncio.to_thread(self.engine.died, proc):
            raise ModelUnavailable(f"the model engine failed the call: {exc!r}") from exc
        if last:
            raise ModelRestarted(
                f"the model engine {exit_reason(proc.returncode)} during the call; "
                "it is being restarted"
            ) from exc
        log.warning("the model engine died before answering; asking its successor")

    async def aclose(self) -> None:
        await self._http.aclose()
        await super().aclose()


def _checked(status: int, body: str) -> dict[str, Any]:
    """The server's answer, or the typed error its status stands for."""
    if status < 400:
        return json.loads(body)
    try:
        message = json.loads(body).get("error", {}).get("message", body)
    except (ValueError, AttributeError):
        message = body
    if status == 400 and "context" in message:
        raise ModelUnavailable(f"prompt too long for the model's context window: {message}")
    if status == 400 and "grammar" in message.lower():
        raise SchemaNotSupported(f"llama-server refused the grammar: {message}")
    raise ModelUnavailable(f"the model engine answered HTTP {status}: {message[:300]}")

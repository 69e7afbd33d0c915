"""The embedded default: llama.cpp in its own supervised process (``engine_process``).

The app keeps the parts that need no model weights (the chat template, the tokenizer
for counting, the grammar text of each schema) and sends the engine rendered prompts.
What the engine computes is exactly what ``LlamaCppBackend`` computes in-process,
saved prompt prefixes included, since the engine runs that class. If the engine dies
while text is streaming, the stream raises ``ModelRestarted`` (what was shown cannot be
taken back) and the next call waits for the new engine; a call with nothing answered yet
is sent once more to the new engine.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from docgemma.llm import chat_format
from docgemma.llm.engine_process import (
    WORKER_MODULE,
    EngineProcess,
    EngineState,
    ModelRestarted,
    exit_reason,
)
from docgemma.llm.engine_wire import LINE_LIMIT, encode, raise_error, read
from docgemma.llm.errors import ModelUnavailable
from docgemma.llm.grammar import GrammarCache, gbnf
from docgemma.llm.llamacpp import existing_model
from docgemma.llm.schema import token_budget, validated
from docgemma.llm.types import Generation, Message, StructuredGeneration, T

log = logging.getLogger(__name__)


class EngineBackend:
    name = "llamacpp"
    supports_vision = False
    worker_module = WORKER_MODULE
    """What the engine process runs; ``engine_slots`` runs llama-server instead."""

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        seed: int = 0,
        chat_format_name: str = "auto",
        start_timeout_s: float = 300.0,
        engine_arguments: Sequence[str] = (),
    ) -> None:
        model_path = existing_model(model_path)
        self.model = model_path.name
        self.model_path = model_path
        self.seed = seed
        arguments = ["--model", str(model_path), "--n-ctx", str(n_ctx), "--seed", str(seed)]
        arguments += ["--threads", str(n_threads or 0), "--chat-format", chat_format_name]
        self.engine = EngineProcess(
            [*arguments, *engine_arguments],
            start_timeout_s=start_timeout_s,
            module=self.worker_module,
        )
        try:
            self.engine.start()
        except ModelUnavailable:
            self.engine.close()  # its folder and any half-started child
            raise
        self.chat_format = self.engine.chat_format
        self._render, self._turn_stops = chat_format.get_format(self.chat_format)
        self._vocab = _vocabulary(model_path)
        self._grammars: GrammarCache[type[BaseModel], str] = GrammarCache()

    @property
    def state(self) -> EngineState:
        """``ok``, ``starting``, ``restarting`` or ``failed``: what health reports."""
        return self.engine.state

    @property
    def pid(self) -> int | None:
        return self.engine.pid

    # ── what the app does itself ──
    def render(self, messages: Sequence[Message], *, add_generation_prompt: bool = True) -> str:
        return self._render(messages, add_generation_prompt)

    def count_tokens(self, text: str) -> int:
        return len(self._vocab.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _grammar(self, schema: type[BaseModel]) -> str:
        return self._grammars.get(schema, lambda: gbnf(schema))

    # ── calls ──
    def prepare(self, schemas: Sequence[type[BaseModel]]) -> None:
        """Each schema's grammar compiled by the engine now, so a bad one fails at start-up.

        Called from start-up code that may or may not run an event loop: a blocking call.
        """
        grammars = [[schema.__name__, self._grammar(schema)] for schema in schemas]
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(self.engine.socket_path)
            conn.sendall(encode({"op": "prepare", "grammars": grammars}))
            with conn.makefile("rb") as answers:
                line = answers.readline()
        message = json.loads(line) if line else {"error": {"message": "the engine closed"}}
        if "error" in message:
            raise_error(message["error"])

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        prefix: str = "",
    ) -> StructuredGeneration[T]:
        prompt = self.render(messages)
        done = await self._call(
            {
                "op": "complete",
                "prompt": prompt + prefix,  # the grammar applies from the first generated token
                "temperature": temperature,
                "max_tokens": max_tokens if max_tokens is not None else token_budget(schema),
                "grammar": self._grammar(schema),
                "prefix_chars": chat_format.stable_prefix_end(prompt, messages),
            }
        )
        return validated(schema, Generation.model_validate(done))

    async def generate(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation:
        prompt = self.render(messages)
        return await self._completion(
            prompt,
            temperature,
            max_tokens,
            (*self._turn_stops, *stop),
            chat_format.stable_prefix_end(prompt, messages),
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.5,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        prompt = self.render(messages)
        return self._stream(
            prompt,
            temperature,
            max_tokens,
            (*self._turn_stops, *stop),
            chat_format.stable_prefix_end(prompt, messages),
        )

    async def complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> Generation:
        return await self._completion(prompt, temperature, max_tokens, stop, 0)

    def stream_complete(
        self,
        prompt: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
    ) -> AsyncIterator[str]:
        return self._stream(prompt, temperature, max_tokens, stop, 0)

    async def _completion(
        self, prompt: str, temperature: float, max_tokens: int, stop: Sequence[str], chars: int
    ) -> Generation:
        done = await self._call(
            {
                "op": "complete",
                "prompt": prompt,
                "temperature": temperature,
                "max_tokens": max_tokens,
                "stop": list(stop),
                "prefix_chars": chars,
            }
        )
        return Generation.model_validate(done)

    async def _stream(
        self, prompt: str, temperature: float, max_tokens: int, stop: Sequence[str], chars: int
    ) -> AsyncIterator[str]:
        request = {
            "op": "stream",
            "prompt": prompt,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "stop": list(stop),
            "prefix_chars": chars,
        }
        for attempt in (1, 2):
            reader, writer, proc = await self._send(request)
            given = False
            try:
                while True:
                    message = await self._next(reader, proc)
                    if "piece" in message:
                        given = True
                        yield message["piece"]
                    elif "error" in message:
                        raise_error(message["error"])
                    else:
                        return
            except ModelRestarted:
                if given or attempt == 2:
                    raise
                log.warning("the model engine died before answering; asking its successor")
            finally:
                writer.close()

    async def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request, answered whole. Sent again once if the engine died before answering:
        a model call changes nothing, so the new engine can answer it from the start. A
        second death is reported, so a request that kills the engine cannot loop."""
        for attempt in (1, 2):
            reader, writer, proc = await self._send(request)
            try:
                message = await self._next(reader, proc)
            except ModelRestarted:
                if attempt == 2:
                    raise
                log.warning("the model engine died before answering; asking its successor")
                continue
            finally:
                writer.close()
            if "error" in message:
                raise_error(message["error"])
            return message.get("done", {})
        raise AssertionError("unreachable")

    async def _send(
        self, request: dict[str, Any]
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, Any]:
        """A connection with ``request`` sent; retried once through a restart, since an
        engine that refused the connection has computed nothing."""
        for attempt in (1, 2):
            path = await self.engine.ready()
            proc = self.engine.current()
            try:
                reader, writer = await asyncio.open_unix_connection(path, limit=LINE_LIMIT)
                writer.write(encode(request))
                await writer.drain()
                return reader, writer, proc
            except (ConnectionError, FileNotFoundError) as exc:
                if attempt == 2 or not await asyncio.to_thread(self.engine.died, proc):
                    raise ModelUnavailable(f"the model engine refused the call: {exc}") from exc
                log.warning("the model engine was gone before a call; waiting for its restart")
        raise AssertionError("unreachable")

    async def _next(self, reader: asyncio.StreamReader, proc: Any) -> dict[str, Any]:
        try:
            message = await read(reader)
        except (ConnectionError, ValueError):
            message = None
        if message is None:
            if await asyncio.to_thread(self.engine.died, proc):
                raise ModelRestarted(
                    f"the model engine {exit_reason(proc.returncode)} during the call; "
                    "it is being restarted"
                )
            raise ModelUnavailable("the model engine closed the call without an answer")
        return message

    async def aclose(self) -> None:
        await asyncio.to_thread(self.engine.close)


def _vocabulary(model_path: Path) -> Any:
    """The model's tokenizer alone (no weights, no compute): token counts stay in the app."""
    from llama_cpp import Llama

    return Llama(model_path=str(model_path), vocab_only=True, verbose=False)

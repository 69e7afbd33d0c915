"""The engine process: llama.cpp serving one model over a Unix socket.

Started by ``engine_process.EngineProcess``, never by hand. It loads the model, makes
one token (a build that crashes on this CPU crashes here, before the app says it is
ready), prints one ``ready`` line on standard output and serves requests (see
``engine_wire``) until its standard input closes, which happens when the app exits or
dies; then it exits at once, a generation in progress or not. Calls run one at a time in
arrival order; the model's saved prompt prefixes live here, so they survive for as long as
the process does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from contextlib import aclosing
from typing import Any

from docgemma.llm.engine_wire import LINE_LIMIT, encode, error_message, read
from docgemma.llm.errors import LLMError
from docgemma.llm.llamacpp import LlamaCppBackend

log = logging.getLogger("docgemma.engine")


class Worker:
    def __init__(self, backend: LlamaCppBackend) -> None:
        self.backend = backend

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await read(reader)
            if request is not None:
                await self._answer(request, writer)
        except (ConnectionError, BrokenPipeError):
            log.info("the app closed a connection before its answer was complete")
        finally:
            writer.close()

    async def _answer(self, request: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        op = request.get("op")
        try:
            if op == "stream":
                pieces = self.backend.stream_prompt(
                    request["prompt"],
                    temperature=request["temperature"],
                    max_tokens=request["max_tokens"],
                    stop=request.get("stop", ()),
                    prefix_chars=request.get("prefix_chars", 0),
                )
                async with aclosing(pieces):  # an app that hung up stops the decoding now
                    async for piece in pieces:
                        writer.write(encode({"piece": piece}))
                        await writer.drain()
                done: dict[str, Any] = {}
            elif op == "complete":
                gen = await self.backend.complete_prompt(
                    request["prompt"],
                    temperature=request["temperature"],
                    max_tokens=request["max_tokens"],
                    stop=request.get("stop", ()),
                    grammar_text=request.get("grammar"),
                    prefix_chars=request.get("prefix_chars", 0),
                )
                done = gen.model_dump(mode="json")
            elif op == "prepare":
                for name, text in request.get("grammars", []):
                    self.backend.compile_grammar(text, name)
                done = {}
            elif op == "ping":
                done = {"pid": os.getpid()}
            else:
                raise LLMError(f"unknown engine operation {op!r}")
        except (ConnectionError, BrokenPipeError):
            raise
        except Exception as exc:  # every failure goes back as a typed error line
            log.warning("engine call %s failed: %s", op, exc)
            writer.write(encode(error_message(exc)))
        else:
            writer.write(encode({"done": done}))
        await writer.drain()


async def _until_stdin_closes() -> None:
    """The app holds our standard input open; end of file means the app is gone."""
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.buffer.read)


async def serve(args: argparse.Namespace) -> None:
    backend = LlamaCppBackend(
        args.model,
        n_ctx=args.n_ctx,
        n_threads=args.threads,
        seed=args.seed,
        chat_format_name=args.chat_format,
    )
    await backend.complete_prompt("Hello", temperature=0.0, max_tokens=1)  # the warm-up token
    worker = Worker(backend)
    server = await asyncio.start_unix_server(worker.handle, path=args.socket, limit=LINE_LIMIT)
    os.chmod(args.socket, 0o600)
    import llama_cpp

    ready = {
        "ready": True,
        "pid": os.getpid(),
        "chat_format": backend.chat_format,
        "system_info": llama_cpp.llama_print_system_info().decode(errors="replace").strip(),
    }
    sys.stdout.write(json.dumps(ready) + "\n")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # nobody reads the pipe from now on
    async with server:
        await _until_stdin_closes()
        # the app is gone or closing: an answer still being generated has no reader, and
        # waiting for it kept this process at full CPU for as long as the generation ran
        logging.shutdown()
        os._exit(0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m docgemma.llm.engine_worker")
    parser.add_argument("--model", required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chat-format", default="auto")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="engine: %(levelname)s %(message)s")
    args.threads = args.threads or None
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()

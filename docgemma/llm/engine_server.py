"""The server engine's process: llama.cpp's own ``llama-server`` with parallel slots, guarded.

Started by ``engine_process.EngineProcess`` in place of ``engine_worker`` when the engine
kind is ``server``, never by hand. It speaks the same start-up protocol as the worker (one
``ready`` line on standard output once a token has been made; exit when standard input
closes), so the app supervises both kinds the same way. In between it runs ``llama-server``
as its own child, listening on the private Unix socket the app names, and mirrors that
child's fate: a server killed by a signal makes this process die by the same signal, and a
``kill -9`` of this process takes the server with it (the kernel's parent-death signal).

The server runs every request in one of ``--slots`` sequences, batched together at each
decoding step (continuous batching). Each slot keeps the prompt it last served, a new
request goes to the idle slot whose prompt it shares most with, and prompts that leave a
slot are kept in RAM (``--cache-ram``) and restored by longest common prefix: the same
per-node prefix reuse the worker gets from ``llamacpp_prefix``, done by llama.cpp itself.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from docgemma.engine_build import usable_cores
from docgemma.llm import chat_format

CACHE_RAM_MIB = 2048
"""RAM for prompt states that left their slot: about 70k tokens of Qwen 1.5B's KV cells, many
times the distinct node prefixes a few sessions use."""
SLOT_PROMPT_SIMILARITY = 0.1
"""How much of a slot's last prompt a request must share to be sent to that slot
(llama.cpp's default): below it, the least recently used idle slot takes the request."""
LOG_VERBOSITY = 2
"""Warnings and errors only: llama-server logs several lines per request at its default."""
_ENV_PREFIXES = ("LLAMA_ARG_", "LLAMA_API_KEY", "LLAMA_LOG_")
"""Environment variables llama-server reads as options: left out, so only these flags count."""
_PR_SET_PDEATHSIG = 1


def server_command(
    binary: Path | str,
    *,
    model: Path | str,
    socket_path: str,
    n_ctx: int,
    slots: int,
    threads: int,
    seed: int,
) -> list[str]:
    """The ``llama-server`` command line: ``slots`` sequences of ``n_ctx`` tokens each.

    The KV cache is one pool of ``n_ctx * slots`` cells shared by the slots
    (``--kv-unified``), each capped at ``n_ctx`` tokens, the context one call of the worker
    engine has. ``--swa-full`` keeps every cell of sliding-window models (Gemma 3), as
    llama-cpp-python does, so a cached prefix can be reused past the window.
    """
    if slots < 1 or n_ctx < 1:
        raise ValueError("slots and n_ctx must be at least 1")
    threads = threads or usable_cores()
    return [
        str(binary),
        "--model",
        str(model),
        "--host",
        socket_path,
        "--ctx-size",
        str(n_ctx * slots),
        "--parallel",
        str(slots),
        "--kv-unified",
        "--kv-unified-per-slot",
        str(n_ctx),
        "--cont-batching",
        "--swa-full",
        "--cache-ram",
        str(CACHE_RAM_MIB),
        "--slot-prompt-similarity",
        str(SLOT_PROMPT_SIMILARITY),
        "--threads",
        str(threads),
        "--threads-batch",
        str(threads),
        "--seed",
        str(seed),
        "--no-webui",
        "--log-verbosity",
        str(LOG_VERBOSITY),
    ]


def server_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    environ = dict(os.environ if environ is None else environ)
    return {k: v for k, v in environ.items() if not k.startswith(_ENV_PREFIXES)}


def _die_with_parent() -> None:
    """Runs in the forked child: the kernel kills it when this guard process dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def health_ok(client: httpx.Client) -> bool:
    """Whether the server has loaded its model (``/health`` answers 200, 503 while loading)."""
    try:
        return client.get("/health").status_code == 200
    except httpx.TransportError:
        return False


def wait_until_healthy(
    client: httpx.Client, proc: subprocess.Popen[bytes], poll_s: float = 0.1
) -> bool:
    """True once the server is healthy; False if it exited first."""
    while proc.poll() is None:
        if health_ok(client):
            return True
        time.sleep(poll_s)
    return False


def first_token(client: httpx.Client) -> dict[str, Any]:
    """One token made through the server: a build that crashes on this CPU crashes here."""
    response = client.post(
        "/v1/completions", json={"prompt": "Hello", "max_tokens": 1, "temperature": 0.0}
    )
    response.raise_for_status()
    return response.json()


def ready_message(client: httpx.Client, pid: int, chat_format_name: str) -> dict[str, Any]:
    """The ready line: the turn format (detected from the model's template when ``auto``)
    and the build's instruction sets, as the worker reports them."""
    props = client.get("/props").json()
    if chat_format_name == "auto":
        chat_format_name = chat_format.detect(props.get("chat_template"))
    info = props.get("build_info") or ""
    return {
        "ready": True,
        "pid": pid,
        "chat_format": chat_format_name,
        "system_info": f"llama-server {info}, {props.get('total_slots', '?')} slots".strip(),
    }


def _exit_like(code: int) -> None:
    """End this process the way the server ended, so the app's log names the real cause."""
    if code < 0:
        with contextlib.suppress(OSError, ValueError):  # SIGKILL's action cannot be set
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        time.sleep(1)  # a signal whose default is to ignore it falls through to the exit
    sys.exit(code if code >= 0 else 128 - code)


def serve(args: argparse.Namespace) -> None:
    command = server_command(
        args.binary,
        model=args.model,
        socket_path=args.socket,
        n_ctx=args.n_ctx,
        slots=args.slots,
        threads=args.threads,
        seed=args.seed,
    )
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=sys.stderr.fileno(),  # the app's engine log
        stderr=sys.stderr.fileno(),
        env=server_environment(),
        preexec_fn=_die_with_parent,
    )
    transport = httpx.HTTPTransport(uds=args.socket)
    with httpx.Client(transport=transport, base_url="http://engine", timeout=None) as client:
        if not wait_until_healthy(client, proc):
            _exit_like(proc.wait())
        try:
            first_token(client)
            ready = ready_message(client, proc.pid, args.chat_format)
        except (httpx.HTTPError, ValueError) as exc:
            print(f"engine: the server failed its first token: {exc}", file=sys.stderr)
            proc.kill()
            _exit_like(proc.wait())
    sys.stdout.write(json.dumps(ready) + "\n")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # nobody reads the pipe from now on

    stopping = threading.Event()

    def stop_when_the_app_is_gone() -> None:
        sys.stdin.buffer.read()
        stopping.set()
        proc.terminate()

    threading.Thread(target=stop_when_the_app_is_gone, daemon=True).start()
    code = proc.wait()
    if stopping.is_set():
        sys.exit(0)
    _exit_like(code)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m docgemma.llm.engine_server")
    parser.add_argument("--binary", required=True, help="the llama-server executable")
    parser.add_argument("--model", required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chat-format", default="auto")
    serve(parser.parse_args(argv))


if __name__ == "__main__":
    main()

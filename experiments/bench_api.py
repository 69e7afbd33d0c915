"""Twenty concurrent streaming sessions on the real embedded model, through the HTTP API.

Run with ``python -m experiments.bench_api [--sessions 20]``. Starts the API as shipped
(``python -m docgemma.api``: the default model profile via llama.cpp, the real tools
offline, the embedded FHIR server) in a subprocess on 127.0.0.1 with a throwaway data folder and
key, opens every session at once and times, per session, the first ``step`` event
(the target: within 200 ms for all), the first graph node, the first answer token
and the ``done`` event. Fairness shows as the spread of those times: with one model
the answers queue, and none may starve.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from docgemma.api.auth import hash_key
from docgemma.api.client import DocGemmaClient, Turn
from docgemma.api.stream_events import DoneEvent, StepEvent, TokenEvent

log = logging.getLogger("experiments.bench_api")
KEY = "bench-key"
QUESTIONS = (
    "What is hypertension?",
    "What is the first-line treatment of type 2 diabetes?",
    "What are the symptoms of pneumonia?",
    "How is atrial fibrillation managed?",
)
TARGET_FIRST_STEP_S = 0.2


@dataclass
class Timing:
    session: int
    first_step_s: float | None = None
    first_node_s: float | None = None
    first_token_s: float | None = None
    done_s: float | None = None
    error: str | None = None


async def one_session(url: str, n: int, start: asyncio.Event) -> Timing:
    timing = Timing(session=n)
    async with DocGemmaClient(url, KEY, timeout=3600) as api:
        await start.wait()
        t0 = time.perf_counter()
        try:
            async for event in api.stream_chat(QUESTIONS[n % len(QUESTIONS)], Turn()):
                now = time.perf_counter() - t0
                if isinstance(event, StepEvent):
                    timing.first_step_s = timing.first_step_s or now
                    if event.status == "started":
                        timing.first_node_s = timing.first_node_s or now
                elif isinstance(event, TokenEvent):
                    timing.first_token_s = timing.first_token_s or now
                elif isinstance(event, DoneEvent):
                    timing.done_s = now
        except Exception as exc:  # one failed session is a result, not a crash
            timing.error = repr(exc)
    return timing


def spread(name: str, values: list[float]) -> str:
    if not values:
        return f"{name}: none"
    values = sorted(values)
    return (
        f"{name}: min {values[0]:.3f} s, median {statistics.median(values):.3f} s, "
        f"max {values[-1]:.3f} s"
    )


def start_server(port: int, data_dir: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCGEMMA_")}
    env |= {
        "DOCGEMMA_PORT": str(port),
        "DOCGEMMA_DATA_DIR": str(data_dir),
        "DOCGEMMA_OFFLINE": "true",
        "DOCGEMMA_API_KEYS": json.dumps({hash_key(KEY): "bench"}),
    }
    log_file = (data_dir / "server.log").open("ab")
    return subprocess.Popen(
        [sys.executable, "-m", "docgemma.api"], env=env, stdout=log_file, stderr=log_file
    )


async def bench(sessions: int, port: int) -> list[Timing]:
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="docgemma-bench-") as folder:
        server = start_server(port, Path(folder))
        try:
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    await asyncio.sleep(0.5)
            else:
                raise RuntimeError("the API did not start")
            start = asyncio.Event()
            tasks = [asyncio.create_task(one_session(url, n, start)) for n in range(sessions)]
            await asyncio.sleep(1.0)  # every client connected and waiting
            start.set()
            return await asyncio.gather(*tasks)
        finally:
            server.terminate()
            server.wait(30)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--out", type=Path, default=None, help="write the timings as JSON")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    log.info("config: sessions=%d port=%d cpus=%d", args.sessions, args.port, os.cpu_count())
    timings = asyncio.run(bench(args.sessions, args.port))
    for t in timings:
        log.info("%s", asdict(t))
    firsts = [t.first_step_s for t in timings if t.first_step_s is not None]
    log.info("%s", spread("first step", firsts))
    log.info("%s", spread("first graph node", [t.first_node_s for t in timings if t.first_node_s]))
    log.info("%s", spread("first token", [t.first_token_s for t in timings if t.first_token_s]))
    log.info("%s", spread("done", [t.done_s for t in timings if t.done_s]))
    late = [
        t.session for t in timings if t.first_step_s is None or t.first_step_s > TARGET_FIRST_STEP_S
    ]
    failed = [t.session for t in timings if t.error or t.done_s is None]
    log.info(
        "first step within %.0f ms: %d/%d; sessions without an answer: %s",
        TARGET_FIRST_STEP_S * 1000,
        len(timings) - len(late),
        len(timings),
        failed or "none",
    )
    if args.out:
        args.out.write_text(json.dumps([asdict(t) for t in timings], indent=2))


if __name__ == "__main__":
    main()

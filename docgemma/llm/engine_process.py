"""The engine's child process, started, watched and restarted by the app.

A crash, abort or out-of-memory kill inside llama.cpp ends the child, not the app: the
call in flight fails with ``ModelRestarted``, a watcher thread starts a new child, and
the next call waits for it. A child that cannot get ready (it crashes on its warm-up
token, or cannot load the model) is reported once with what failed, the CPU's features
and how to rebuild, instead of a page that fails on every question.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from docgemma.engine_build import REBUILD_HINT, describe_cpu
from docgemma.llm.errors import ModelUnavailable

log = logging.getLogger(__name__)

EngineState = Literal["starting", "ok", "restarting", "failed"]

_LOG_TAIL_LINES = 12


class EngineFailed(ModelUnavailable):
    """The engine process could not get ready; the message says why and what to do."""


class ModelRestarted(ModelUnavailable):
    """The engine process died during this call and is being restarted."""


def exit_reason(code: int | None) -> str:
    if code is None:
        return "is still running"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


WORKER_MODULE = "docgemma.llm.engine_worker"


class EngineProcess:
    """One supervised engine child running ``module`` with ``arguments``.

    ``module`` is ``engine_worker`` (llama-cpp-python, calls in arrival order) or
    ``engine_server`` (llama-server with parallel slots); both print one ready line once a
    token is made, serve on ``socket_path`` and exit when their standard input closes.
    """

    def __init__(
        self,
        arguments: Sequence[str],
        *,
        start_timeout_s: float = 300.0,
        module: str = WORKER_MODULE,
    ) -> None:
        self._arguments = list(arguments)
        self.module = module
        self._start_timeout_s = start_timeout_s
        self._folder = Path(tempfile.mkdtemp(prefix="docgemma-engine-"))
        self.socket_path = str(self._folder / "engine.sock")
        self._log_path = self._folder / "engine.log"
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._closing = False
        self.state: EngineState = "starting"
        self.failure = ""
        self.restarts = 0
        self.chat_format = "auto"
        self.system_info = ""

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    # ── starting ──
    def start(self) -> None:
        """Start the child and wait until it has made its first token; ``EngineFailed`` if not."""
        with self._lock:
            self._spawn_and_wait()

    def _spawn_and_wait(self) -> None:
        Path(self.socket_path).unlink(missing_ok=True)
        command = [sys.executable, "-m", self.module]
        command += ["--socket", self.socket_path, *self._arguments]
        with self._log_path.open("ab") as stderr:
            proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
            )
        self._proc = proc
        timer = threading.Timer(self._start_timeout_s, proc.kill)
        timer.start()
        try:
            ready = self._read_ready(proc)
        finally:
            timer.cancel()
        if ready is None:
            proc.kill()
            code = proc.wait()
            self.state = "failed"
            self.failure = self._diagnosis(code)
            log.error("%s", self.failure)
            raise EngineFailed(self.failure)
        self.chat_format = ready.get("chat_format", "auto")
        self.system_info = ready.get("system_info", "")
        self.state, self.failure = "ok", ""
        log.info("model engine ready (pid %d): %s", proc.pid, self.system_info)
        threading.Thread(target=self._watch, args=(proc,), daemon=True).start()

    @staticmethod
    def _read_ready(proc: subprocess.Popen[bytes]) -> dict | None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue  # a library's stray print
            if isinstance(message, dict) and message.get("ready"):
                return message
        return None

    def _diagnosis(self, code: int | None) -> str:
        try:
            tail = self._log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            tail = []
        last = "\n".join(tail[-_LOG_TAIL_LINES:])
        text = (
            f"The model engine {exit_reason(code)} before it was ready. {describe_cpu()}. "
            f"To fix: {REBUILD_HINT}."
        )
        return f"{text}\nEngine log:\n{last}" if last else text

    # ── watching ──
    def _watch(self, proc: subprocess.Popen[bytes]) -> None:
        code = proc.wait()
        with self._lock:
            if self._closing or proc is not self._proc:
                return
            log.error("the model engine (pid %d) %s; restarting it", proc.pid, exit_reason(code))
            self.state = "restarting"
            self.restarts += 1
            try:
                self._spawn_and_wait()
            except EngineFailed:
                return  # state is "failed" with the diagnosis

    def current(self) -> subprocess.Popen[bytes] | None:
        """The child serving calls now; a call keeps it to tell its own engine's fate."""
        return self._proc

    @staticmethod
    def died(proc: subprocess.Popen[bytes] | None, wait_s: float = 2.0) -> bool:
        """Whether ``proc`` has exited (waiting briefly for a dying one)."""
        if proc is None:
            return True
        try:
            proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            return False
        return True

    async def ready(self, timeout_s: float | None = None) -> str:
        """The socket to call once the engine is up; waits through a restart."""
        deadline = time.monotonic() + (timeout_s or self._start_timeout_s)
        while True:
            state = self.state
            if state == "failed" or self._closing:
                raise EngineFailed(self.failure or "the model engine is stopped")
            if state == "ok" and not self._lock.locked():
                return self.socket_path
            if time.monotonic() > deadline:
                raise ModelUnavailable("the model engine did not get ready in time")
            await asyncio.sleep(0.05)

    # ── stopping ──
    def close(self) -> None:
        with self._lock:
            self._closing = True
            proc = self._proc
        if proc is not None and proc.poll() is None:
            if proc.stdin is not None:
                proc.stdin.close()  # the child's signal to finish
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(self._folder, ignore_errors=True)

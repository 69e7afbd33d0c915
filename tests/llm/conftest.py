"""Fixtures of the LLM-layer tests: a real llama.cpp OpenAI-compatible server process."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``python -m llama_cpp.server`` on the embedded GGUF; yields its ``/v1`` base URL."""
    from docgemma.assets import model_file

    port = free_port()
    log_path = tmp_path_factory.mktemp("llama_server") / "server.log"
    log = log_path.open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model_file("gemma3-270m")),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
            "--chat_format",
            "gemma",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
            try:
                if httpx.get(f"{base_url}/models", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama_cpp.server did not start within 60 s")
            time.sleep(0.3)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture
def few_shot() -> str:
    """A prompt whose examples close their thinking, so even the tiny base model ends it early."""
    return (
        "Question: What is 2+2?\n<think>\n2 plus 2 makes 4.\n</think>\nAnswer: 4\n\n"
        "Question: What is the capital of France?\n"
        "<think>\nFrance's capital city is Paris.\n</think>\n"
        "Answer: Paris\n\nQuestion: Is aspirin an NSAID?\n"
    )


@pytest.fixture
def special_few_shot() -> str:
    """Few-shot thinking closed by a special token that renders as empty text.

    The base 270M model never emits MedGemma's ``<unused95>`` (its embedding is
    untrained) but copies ``<unused0>``, another such token, so that one stands in.
    """
    return (
        "Question: What is 2+2?\n<unused94>\n2 plus 2 makes 4.\n<unused0>\nAnswer: 4\n\n"
        "Question: What is the capital of France?\n"
        "<unused94>\nFrance's capital city is Paris.\n<unused0>\nAnswer: Paris\n\n"
        "Question: What is the capital of Spain?\n"
        "<unused94>\nSpain's capital city is Madrid.\n<unused0>\nAnswer: Madrid\n\n"
        "Question: Is aspirin an NSAID?\n"
    )

"""The server engine's process logic without a server: its ``llama-server`` command line, the
environment it gets, how health and the ready line are read, and how the server's answers
and failures become the app's typed errors."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from docgemma.engine_build import usable_cores
from docgemma.llm import engine_server
from docgemma.llm.engine_server import server_command, server_environment
from docgemma.llm.engine_slots import SAMPLING, SlotsEngineBackend, _checked
from docgemma.llm.errors import ConfigurationError, ModelUnavailable, SchemaNotSupported
from docgemma.llm.llamacpp import call_seed


def command(**changes: object) -> list[str]:
    options = dict(model="m.gguf", socket_path="/tmp/x/engine.sock", n_ctx=4096, slots=4)
    options |= dict(threads=2, seed=7) | changes
    return server_command("/bin/llama-server", **options)


def option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def test_each_slot_gets_the_whole_context_window_of_one_call() -> None:
    args = command(n_ctx=2048, slots=3)
    assert option(args, "--parallel") == "3"
    assert option(args, "--ctx-size") == str(2048 * 3)  # one pool the slots share
    assert "--kv-unified" in args and option(args, "--kv-unified-per-slot") == "2048"
    assert "--cont-batching" in args


def test_the_server_listens_only_on_the_private_socket_and_serves_no_page() -> None:
    args = command()
    assert option(args, "--host") == "/tmp/x/engine.sock"
    assert "--port" not in args and "--no-webui" in args


def test_prompts_are_cached_as_the_worker_caches_them() -> None:
    """Full sliding-window cache (llama-cpp-python's default) and prompt states kept in RAM."""
    args = command()
    assert "--swa-full" in args
    assert int(option(args, "--cache-ram")) > 0
    assert float(option(args, "--slot-prompt-similarity")) > 0


def test_threads_default_to_every_usable_core_and_the_seed_is_passed() -> None:
    args = command(threads=0)
    assert option(args, "--threads") == option(args, "--threads-batch") == str(usable_cores())
    assert option(command(), "--seed") == "7"


@pytest.mark.parametrize("bad", [{"slots": 0}, {"n_ctx": 0}])
def test_a_server_without_slots_or_context_is_refused(bad: dict) -> None:
    with pytest.raises(ValueError):
        command(**bad)


def test_llama_server_options_from_the_environment_are_left_out() -> None:
    env = server_environment({"PATH": "/bin", "LLAMA_ARG_N_PARALLEL": "1", "LLAMA_API_KEY": "k"})
    assert env == {"PATH": "/bin"}


def _client(handler) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler), base_url="http://engine")


class Running:
    """Stands in for a ``Popen`` whose process is alive for ``polls`` polls, then exits."""

    def __init__(self, polls: int = 1000) -> None:
        self.polls = polls

    def poll(self) -> int | None:
        self.polls -= 1
        return None if self.polls > 0 else 1


def test_health_is_waited_for_while_the_model_loads() -> None:
    answers = iter([503, 503, 200])

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(next(answers), json={})

    with _client(handler) as client:
        assert engine_server.wait_until_healthy(client, Running(), poll_s=0)


def test_a_server_that_exits_while_loading_is_not_waited_for() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("no socket yet")

    with _client(handler) as client:
        assert not engine_server.wait_until_healthy(client, Running(polls=3), poll_s=0)


@pytest.mark.parametrize(
    ("template", "configured", "expected"),
    [
        ("<|im_start|>{{ role }}", "auto", "chatml"),
        ("<start_of_turn>", "auto", "gemma"),
        ("<|im_start|>", "gemma", "gemma"),
    ],
)
def test_the_ready_line_names_the_turn_format(
    template: str, configured: str, expected: str
) -> None:
    props = {"chat_template": template, "build_info": "b1", "total_slots": 4}

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=props)

    with _client(handler) as client:
        ready = engine_server.ready_message(client, 42, configured)
    assert ready["ready"] and ready["pid"] == 42 and ready["chat_format"] == expected
    assert "4 slots" in ready["system_info"]


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSEGV])
def test_the_guard_dies_the_way_its_server_died(sig: signal.Signals) -> None:
    """The app's log then names the server's real fate (``killed by SIGSEGV``)."""
    code = f"from docgemma.llm.engine_server import _exit_like; _exit_like({-int(sig)})"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert proc.returncode == -sig


def test_a_missing_server_binary_says_how_to_build_it(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"")
    for binary in (None, tmp_path / "absent"):
        with pytest.raises(ConfigurationError, match="engine_build.py server"):
            SlotsEngineBackend(model, server_binary=binary)


def _backend(seed: int = 3) -> SlotsEngineBackend:
    backend = SlotsEngineBackend.__new__(SlotsEngineBackend)  # no process: payloads only
    backend.seed = seed
    return backend


def test_a_constrained_call_sends_its_grammar_seed_and_the_workers_sampling() -> None:
    request = {"prompt": "p", "temperature": 0.0, "max_tokens": 9, "grammar": 'root ::= "a"'}
    payload = _backend()._payload(request, stream=False)
    assert payload["grammar"] == 'root ::= "a"' and payload["max_tokens"] == 9
    assert payload["seed"] == call_seed(3, "p", 0.0)
    assert payload["cache_prompt"] is True and payload["stream"] is False
    assert {k: payload[k] for k in SAMPLING} == SAMPLING
    assert "stop" not in payload


def test_a_free_call_sends_its_stops_and_no_grammar() -> None:
    request = {"prompt": "p", "temperature": 0.5, "max_tokens": 9, "stop": ["<end_of_turn>"]}
    payload = _backend()._payload(request, stream=True)
    assert payload["stop"] == ["<end_of_turn>"] and "grammar" not in payload
    assert payload["stream"] is True


@pytest.mark.parametrize(
    ("status", "message", "error"),
    [
        (400, "the request exceeds the available context size", ModelUnavailable),
        (400, "Failed to parse grammar", SchemaNotSupported),
        (503, "Loading model", ModelUnavailable),
    ],
)
def test_server_errors_become_typed_errors(status: int, message: str, error: type) -> None:
    body = json.dumps({"error": {"message": message}})
    with pytest.raises(error, match=message.split()[0]):
        _checked(status, body)


def test_a_context_overflow_says_so() -> None:
    with pytest.raises(ModelUnavailable, match="prompt too long"):
        _checked(400, json.dumps({"error": {"message": "exceeds the available context size"}}))
    assert _checked(200, '{"choices": []}') == {"choices": []}

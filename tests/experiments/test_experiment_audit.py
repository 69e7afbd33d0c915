"""Arguments apart from tool choice, the manifest's settings, concurrency, case counts."""

from __future__ import annotations

import asyncio
import json

import pytest

from docgemma.llm.scripted import ScriptedBackend
from experiments.cases import load_cases
from experiments.runner import run_and_save, run_suite
from experiments.seed_figures import seed_figure
from experiments.suites import SUITES, suite_module

ARGS_BY_QUERY = {c.query: c.expected_args for c in load_cases("tool_selection")}


def _wrong_tool_right_args(messages, schema):
    """Stage 1 always picks ``search_patient``; stage 2 returns the case's expected arguments."""
    if schema is None:
        return "free text"
    if "tool_name" in schema.model_fields:
        return {"tool_name": "search_patient"}
    query = messages[-1].content
    return {k: v for k, v in ARGS_BY_QUERY[query].items() if k in schema.model_fields} or {
        name: "x" for name, info in schema.model_fields.items() if info.is_required()
    }


def test_baseline_scores_arguments_zero_when_the_tool_is_wrong():
    frame = run_suite(
        "tool_selection",
        {"n": 3, "strategies": ["baseline"]},
        ScriptedBackend(responder=_wrong_tool_right_args),
    )
    wrong = frame[frame["expected_tool"] != "search_patient"]
    assert not wrong.empty and (~wrong["tool_exact"].astype(bool)).all()
    assert wrong["arg_accuracy"].eq(0.0).all() and wrong["arg_accuracy_given_tool"].isna().all()


def test_arg_accuracy_given_tool_only_counts_right_tools():
    def responder(messages, schema):
        if "tool_name" in schema.model_fields:
            return {"tool_name": "check_drug_safety"}
        return {"drug_name": "something else"}

    frame = run_suite(
        "tool_selection",
        {"n": 10, "strategies": ["baseline"]},
        ScriptedBackend(responder=responder),
    )
    right = frame[frame["tool_exact"].astype(bool)]
    assert len(right) == 1 and right["arg_accuracy_given_tool"].iloc[0] == 0.0
    assert frame["arg_accuracy_given_tool"].notna().sum() == 1


def test_empty_output_figure_says_it_comes_from_synthesis(tmp_path):
    figure = seed_figure("thinking", "thinking_on", "empty_visible")
    assert figure.value == 0.13 and "synthesis" in figure.note
    out = run_and_save(
        "thinking",
        {"n": 1, "strategies": ["thinking_on"], "token_cap": 4, "results_dir": tmp_path},
        ScriptedBackend(responder=lambda messages, schema: "An answer."),
    )
    report = (out.folder / "report.md").read_text()
    assert "Notes on the seed figures" in report and "synthesis answers" in report


def test_manifest_records_backend_settings_without_secrets(settings, monkeypatch, tmp_path):
    secrets = {
        "DOCGEMMA_OPENAI_API_KEY": "sk-audit-key-123",
        "DOCGEMMA_FHIR_TOKEN": "fhir-audit-token-456",
        "DOCGEMMA_FHIR_CLIENT_SECRET": "client-audit-secret-789",
    }
    for key, value in secrets.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("DOCGEMMA_OPENAI_DIALECT", "llamacpp")
    monkeypatch.setenv("DOCGEMMA_CLASSIFIER_THRESHOLD", "0.7")
    out = run_and_save(
        "routing",
        {"n": 1, "strategies": ["sufficiency"], "seed": 5, "results_dir": tmp_path},
        ScriptedBackend(responder=lambda messages, schema: {"sufficient": True}),
    )
    text = (out.folder / "manifest.json").read_text()
    for value in secrets.values():
        assert value not in text
    resolved = json.loads(text)["backend_settings"]
    assert not {"openai_api_key", "fhir_token", "fhir_client_secret"} & set(resolved)
    assert resolved["openai_dialect"] == "llamacpp" and resolved["classifier_threshold"] == 0.7
    assert (resolved["backend"], resolved["seed"]) == ("scripted", 5)
    assert {"n_ctx", "n_threads", "llm_timeout_s", "llm_max_retries", "chat_format"} <= set(
        resolved
    )
    assert {"thinking", "thinking_family", "openai_base_url", "model_path"} <= set(resolved)


class SlowBackend(ScriptedBackend):
    """A remote-style backend (no batching) whose calls take a while; counts calls in flight."""

    def __init__(self, delay: float = 0.03, **kwargs) -> None:
        super().__init__(**kwargs)
        self.delay = delay
        self.in_flight = 0
        self.peak = 0

    async def _slow(self, call):
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            return await call
        finally:
            self.in_flight -= 1

    async def structured(self, messages, schema, **kwargs):
        return await self._slow(super().structured(messages, schema, **kwargs))

    async def generate(self, messages, **kwargs):
        return await self._slow(super().generate(messages, **kwargs))


def _any_reply(messages, schema):
    if schema is None:
        return "Monitor the INR closely."
    if "tool_name" in schema.model_fields:
        return {"tool_name": "check_drug_safety"}
    return {"drug_name": "warfarin"} if "drug_name" in schema.model_fields else {"x": 1}


@pytest.mark.parametrize(
    ("suite", "strategies"),
    [("tool_selection", ["baseline", "joint"]), ("synthesis", ["temperature_0.5"])],
)
def test_concurrency_is_reached_and_never_exceeded(suite, strategies):
    backend = SlowBackend(responder=_any_reply)
    frame = run_suite(suite, {"n": 6, "strategies": strategies, "concurrency": 3}, backend)
    assert len(frame) == 6 * len(strategies)
    assert backend.peak == 3
    serial = SlowBackend(responder=_any_reply)
    run_suite(suite, {"n": 4, "strategies": strategies, "concurrency": 1}, serial)
    assert serial.peak == 1


@pytest.mark.parametrize("suite", SUITES)
def test_every_strategy_has_at_least_twelve_cases(suite):
    module = suite_module(suite)
    cases = module.load(_config(suite)) if hasattr(module, "load") else load_cases(module.CASES)
    for strategy in module.STRATEGIES.values():
        eligible = [c for c in cases if strategy.applies(c)]
        assert len(eligible) >= 12, f"{suite}/{strategy.name}: {len(eligible)} cases"


def _config(suite: str):
    from experiments.trial import RunConfig

    return RunConfig(suite=suite)

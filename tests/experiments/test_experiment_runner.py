"""Runner logic on the scripted double: batching, key-order flagging, CLI errors, case files."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from docgemma.llm.errors import StructuredOutputError
from docgemma.llm.scripted import ScriptedBackend
from experiments.calls import Caller
from experiments.cases import CASE_FILES, as_dataset, cases_dataset, load_cases
from experiments.runner import run_and_save, run_suite
from experiments.suites import SUITES


class BatchingBackend(ScriptedBackend):
    """The scripted double plus ``structured_batch``, shaped like the in-process vLLM backend's."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.batch_sizes: list[int] = []

    def structured_batch(self, batch, schema, *, temperature=0.0, max_tokens=None):
        import asyncio

        self.batch_sizes.append(len(batch))
        results = []
        for conversation in batch:
            try:
                results.append(
                    asyncio.run(self.structured(conversation, schema, temperature=temperature))
                )
            except StructuredOutputError as exc:
                results.append(exc)
        return results


def _tool_responder(messages, schema):
    if schema is None:
        return "free text"
    if "tool_name" in schema.model_fields:
        return {"tool_name": "check_drug_safety"}
    return {name: "x" for name, info in schema.model_fields.items() if info.is_required()}


def test_caller_batches_concurrent_constrained_calls():
    backend = BatchingBackend(responder=_tool_responder)
    frame = run_suite(
        "tool_selection", {"n": 6, "strategies": ["baseline"], "concurrency": 8}, backend
    )
    assert len(frame) == 6
    assert sum(backend.batch_sizes) == len([c for c in backend.calls if c.kind == "structured"])
    assert max(backend.batch_sizes) > 1, "concurrent stage-1 calls should share one engine call"
    assert frame.attrs["run"]["batched_calls"] == backend.batch_sizes


async def test_caller_records_unparsable_output_instead_of_raising():
    backend = ScriptedBackend(replies=['{"tool_name": "no_such_tool"}'])
    from docgemma.llm.types import messages
    from docgemma.tools.registry import build_registry

    record = await Caller(backend).structured(
        messages(("user", "q")), build_registry().selection_model()
    )
    assert record.parsed is None and record.error.startswith("StructuredOutputError")
    assert record.response == '{"tool_name": "no_such_tool"}'


def test_report_flags_a_backend_that_reorders_keys(tmp_path):
    def reordering(messages, schema):
        if schema is None:
            return "Answer."
        if "tool_name" in schema.model_fields:
            return {"tool_name": "add_allergy"}
        # emit the allergy arguments with the optional field first, as some grammar converters do
        return (
            '{"severity": "moderate", "patient_id": "abc-123", '
            '"substance": "penicillin", "reaction": "hives"}'
        )

    out = run_and_save(
        "tool_selection",
        {"n": 1, "strategies": ["baseline"], "results_dir": tmp_path, "data_dir": None},
        ScriptedBackend(responder=reordering),
    )
    assert out.frame["key_order_honoured"].tolist() == [False]
    report = (out.folder / "report.md").read_text()
    assert "FLAGGED" in report and "baseline" in report
    assert json.loads((out.folder / "manifest.json").read_text())["key_order_violations"] == 1


def test_unknown_strategy_is_a_clear_error(capsys):
    from experiments.__main__ import main

    assert main(["run", "routing", "--backend", "scripted", "--strategies", "telepathy"]) == 2
    assert "telepathy" in capsys.readouterr().err


@pytest.mark.parametrize("name", list(CASE_FILES))
def test_case_files_are_valid_and_large_enough(name):
    cases = load_cases(name)
    assert len(cases) >= 20
    assert cases_dataset(name).num_rows == len(cases)
    assert as_dataset(f"data/experiments/{CASE_FILES[name][0]}").num_rows == len(cases)


def test_tool_cases_name_real_tools_and_arguments():
    from docgemma.tools.registry import build_registry

    registry = build_registry()
    for case in load_cases("tool_selection"):
        assert case.expected_tool in registry
        assert set(case.acceptable_tools) <= set(registry.names)
        assert set(case.expected_args) <= set(registry[case.expected_tool].args.model_fields)
        registry[case.expected_tool].args.model_validate(case.expected_args)


def test_every_suite_lists_strategies_with_descriptions():
    from experiments.suites import suite_module

    for suite in SUITES:
        module = suite_module(suite)
        assert module.STRATEGIES and all(s.description for s in module.STRATEGIES.values())


def test_results_load_back_as_dataset(tmp_path):
    frame = pd.DataFrame({"strategy": ["a"], "correct": [True], "key_order": ['["x"]']})
    frame.to_parquet(tmp_path / "results.parquet")
    assert as_dataset(tmp_path / "results.parquet")[0]["key_order"] == '["x"]'


def test_variant_schemas_are_derived_from_the_argument_models():
    from docgemma.llm.schema import check_bounded
    from docgemma.tools.registry import build_registry
    from experiments.schemas import FieldOrder, joint_schema, ordered_schema

    registry = build_registry()

    prescribe = registry["prescribe_medication"].args
    flipped = ordered_schema(prescribe, FieldOrder.CRITICAL_LAST)
    assert list(flipped.model_fields) == list(reversed(prescribe.model_fields))
    with pytest.raises(ValueError):  # constraints survive the reordering
        flipped(patient_id="", medication_name="x", dosage="1 mg", frequency="daily", notes=None)
    joint = joint_schema(tuple(registry.names))
    assert next(iter(joint.model_fields)) == "tool_name"
    assert joint(tool_name="search_patient").name is None
    for schema in (flipped, joint):
        check_bounded(schema)


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("google/medgemma-1.5-4b-it", "medgemma"),
        ("Qwen/Qwen3-4B", "qwen"),
        ("gemma-3-270m-q4_k_m.gguf", "generic"),
    ],
)
def test_thinking_family_follows_the_model_id(model, family):
    from experiments.suites.thinking import family_for

    assert family_for(model) == family


def test_pick_cases_covers_every_stratum_first():
    from experiments.runner import pick_cases
    from experiments.suites.tool_selection import stratum

    cases = load_cases("tool_selection")
    picked = pick_cases(cases, 10, stratum)
    assert len({c.expected_tool for c in picked}) == 10
    assert pick_cases(cases, 3, None) == cases[:3]
    assert pick_cases(cases, None, stratum) == cases


def test_llm_judge_scores_are_stored_apart_and_labelled(tmp_path):
    def responder(messages, schema):
        if schema is None:
            return (
                "Dofetilide needs three days of ECG monitoring; check creatinine clearance and QTc."
            )
        return {"score": 7, "reason": "accurate"}

    config = {
        "n": 1,
        "strategies": ["prompt_brief"],
        "backend": "scripted",
        "judge_backend": "scripted",
        "results_dir": tmp_path,
    }
    out = run_and_save("synthesis", config, ScriptedBackend(responder=responder))
    row = out.frame.iloc[0]
    assert row["llm_judge_score"] == 7 and row["key_fact_rate"] == 1.0 and row["source_clean"]
    report = (out.folder / "report.md").read_text()
    assert (
        "LLM-as-judge" in report and "9.30" in report
    )  # the design study's Gemini score for the brief prompt


def test_prefix_completion_reads_a_tool_named_after_a_blank_line():
    """A small model continues the analytical prefix with ":" and the tool's name after a blank
    line; the strategy must find it (a stop at the blank line once scored it 0)."""

    def responder(messages, schema):
        if schema is None:
            return ":\n\n`check_drug_safety`"
        return {name: "x" for name, info in schema.model_fields.items() if info.is_required()}

    frame = run_suite(
        "tool_selection",
        {"n": 2, "strategies": ["prefix_analytical"]},
        ScriptedBackend(responder=responder),
    )
    assert (frame["predicted_tool"] == "check_drug_safety").all(), list(frame["predicted_tool"])

"""The field-order study compares different schemas only, and only trials that kept the order."""

from __future__ import annotations

import json
import math

import pytest

from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.registry import build_registry
from experiments.calls import Caller
from experiments.cases import ToolCase, load_cases
from experiments.runner import run_and_save, run_suite
from experiments.schemas import FieldOrder, ordered_schema
from experiments.suites.field_order import STRATEGIES, extract, takes_part
from experiments.trial import Context, RunConfig

REGISTRY = build_registry()

CASES = load_cases("field_order")
ARGS = {c.query: c.expected_args for c in CASES}
CASES_BY_QUERY = {c.query: c for c in CASES}


def _declared_order(messages, schema):
    """The case's expected arguments, every field present, in the order the schema declares."""
    expected = ARGS[messages[-1].content]
    return {name: expected.get(name) for name in schema.model_fields}


def _always_critical_first(messages, schema):
    """A backend that ignores the declared order and emits the tool's own order."""
    expected = ARGS[messages[-1].content]
    base = next(s.args for s in REGISTRY if s.args.__name__ in schema.__name__)
    return {name: expected.get(name) for name in base.model_fields}


def test_the_case_file_has_enough_multi_field_cases_over_every_multi_field_tool():
    multi = {spec.name for spec in REGISTRY if len(spec.args.model_fields) > 1}
    assert len(CASES) >= 30 and all(takes_part(c) for c in CASES)
    assert {c.expected_tool for c in CASES} == multi
    assert {"prescribe_medication", "add_allergy", "save_clinical_note"} <= multi


@pytest.mark.parametrize("order", list(FieldOrder))
def test_both_variants_require_every_property_in_their_declared_order(order):
    declared = REGISTRY["prescribe_medication"].args
    schema = ordered_schema(declared, order)
    names = list(declared.model_fields)
    expected = names[::-1] if order is FieldOrder.CRITICAL_LAST else names
    json_schema = schema.model_json_schema()
    assert list(json_schema["properties"]) == expected
    assert json_schema["required"] == expected  # optional "notes" is required, but nullable
    closed = {"frequency": "twice daily", "route": "oral"}  # closed fields: vocabulary values
    assert schema.model_validate({**{n: "x" for n in names}, **closed, "notes": None})


async def test_a_single_field_case_is_refused_not_diluted():
    case = ToolCase(
        id="one", query="Check dofetilide", expected_tool="check_drug_safety", expected_args={}
    )
    ctx = Context(config=RunConfig(suite="field_order"), cases=[case], registry=build_registry())
    caller = Caller(ScriptedBackend(responder=lambda m, s: {"drug_name": "dofetilide"}))
    assert not takes_part(case)
    with pytest.raises(ValueError, match="one argument field"):
        await extract(case, caller, ctx, order=FieldOrder.CRITICAL_LAST)
    assert all(not s.applies(case) for s in STRATEGIES.values())


def test_trials_extract_for_the_expected_tool_in_the_declared_order():
    backend = ScriptedBackend(responder=_declared_order)
    frame = run_suite("field_order", {"n": 8}, backend)
    assert len(frame) == 16 and frame["calls"].eq(1).all()
    assert frame["order_kept"].all() and frame["arg_accuracy_given_tool"].eq(1.0).all()
    assert set(frame["field_order"]) == {"critical_first", "critical_last"}
    assert frame["expected_tool"].nunique() == 4  # stratified over the multi-field tools
    for call in backend.calls:
        assert "tool_name" not in call.schema.model_fields
        reversed_ = call.schema.__name__.endswith("CriticalLast")
        base = REGISTRY[CASES_BY_QUERY[call.messages[-1].content].expected_tool].args
        names = list(base.model_fields)
        assert list(call.schema.model_fields) == (names[::-1] if reversed_ else names)


def test_a_backend_that_reorders_keys_makes_its_trials_invalid(tmp_path):
    out = run_and_save(
        "field_order",
        {"n": 4, "results_dir": tmp_path},
        ScriptedBackend(responder=_always_critical_first),
    )
    frame = out.frame
    last = frame[frame["strategy"] == "critical_last"]
    first = frame[frame["strategy"] == "critical_first"]
    assert not last["order_kept"].any() and last["arg_accuracy_given_tool"].map(math.isnan).all()
    assert first["order_kept"].all() and first["arg_accuracy_given_tool"].eq(1.0).all()
    report = (out.folder / "report.md").read_text()
    assert "INVALID trials — key order not kept** (critical_last: 4)" in report
    assert "| critical_first | arg_accuracy_given_tool | 0.88 | 1.00 |" in report
    assert "All 8 trials used tools with several argument fields" in report
    manifest = json.loads((out.folder / "manifest.json").read_text())
    assert manifest["key_order_violations"] == 4


def test_figures_are_also_written_as_static_png_and_svg(tmp_path):
    out = run_and_save(
        "field_order", {"n": 2, "results_dir": tmp_path}, ScriptedBackend(responder=_declared_order)
    )
    figures = out.folder / "figures"
    for name in json.loads((out.folder / "manifest.json").read_text())["figures"]:
        for suffix in ("png", "svg"):
            assert (figures / f"{name}.{suffix}").stat().st_size > 1000, (name, suffix)
    assert (figures / "accuracy_by_strategy.png").read_bytes()[:4] == b"\x89PNG"

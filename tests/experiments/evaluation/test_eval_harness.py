"""The evaluation harness end to end: the real agent, embedded FHIR, recorded services.

Logic on the scripted model (what reaches the model, what is scored); one case on the
real embedded model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest

from docgemma.agent.answer import UNVERIFIED_NOTE
from docgemma.agent.coverage import UNMENTIONED_HEADER
from docgemma.config import Settings
from docgemma.llm.scripted import ScriptedBackend
from docgemma.llm.types import Message
from experiments.evaluation.cases import load_eval_cases
from experiments.evaluation.harness import EvalEnvironment
from experiments.evaluation.run import evaluate
from experiments.evaluation.scoring import category_table, score

CASES = {c.id: c for c in load_eval_cases()}


def scripted(intent: str, tool: str | None, args: dict, answer: str) -> ScriptedBackend:
    """Answers each structured call by its schema's fields; free text gets ``answer``."""

    def respond(_: Sequence[Message], schema: type | None) -> Any:
        fields = set(schema.model_fields) if schema else set()
        if schema is None:
            return answer
        if "intent" in fields:
            return {"intent": intent, "task_summary": "task", "suggested_tool": None}
        if "tool_name" in fields:
            return {"tool_name": tool}
        if "quality" in fields:
            return {"quality": "success_rich", "brief_summary": "found"}
        if "strategy" in fields:
            return {"strategy": "retry_same", "reasoning": "transient"}
        if fields & set(args):
            return args
        raise AssertionError(f"unexpected structured call {schema.__name__}")

    return ScriptedBackend(responder=respond)


def prompts_text(llm: ScriptedBackend) -> str:
    return " ".join(" ".join(str(m.content) for m in call.messages) for call in llm.calls)


@pytest.fixture
def eval_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"backend": "scripted"})


async def test_recorded_label_reaches_the_model_and_the_turn_scores_full(eval_settings):
    case = CASES["safety-01"]
    answer = "Dofetilide: torsade de pointes risk; start with 3 days of ECG monitoring."
    llm = scripted("TOOL_NEEDED", "check_drug_safety", {"drug_name": "dofetilide"}, answer)
    async with EvalEnvironment(eval_settings, llm, classifiers={}) as env:
        record = await env.run(case)
    assert any("api.fda.gov" in url and "dofetilide" in url for url in record.requests)
    assert "continuous electrocardiographic monitoring" in prompts_text(llm)
    row = score(case, record)
    assert row["route_ok"] is True and row["tool_exact"] is True
    assert row["arg_accuracy"] == 1.0 and row["key_fact_recall"] == 1.0
    assert not row["leaked"] and math.isnan(row["asked_when_needed"])
    assert 0 < row["first_event_s"] < row["latency_s"]


async def test_injected_outage_is_retried_and_the_boxed_warning_reaches_the_answer(eval_settings):
    """The label's boxed warning is its main finding: an answer that leaves it out gets the
    label's key facts below it, and the evaluation scores the answer as shown."""
    case = CASES["failure-03"]  # openFDA fails once, then answers
    llm = scripted("TOOL_NEEDED", "check_drug_safety", {"drug_name": "metformin"}, "All fine.")
    async with EvalEnvironment(eval_settings, llm, classifiers={}) as env:
        record = await env.run(case)
    assert sum("api.fda.gov" in url for url in record.requests) == 2
    assert "LACTIC ACIDOSIS" in prompts_text(llm)
    answer = record.result.final_response
    assert answer.startswith(f"All fine.\n\n{UNMENTIONED_HEADER}") and "LACTIC ACIDOSIS" in answer
    row = score(case, record)
    assert row["tool_exact"] is True and row["key_fact_recall"] == 1.0
    # the facts are in the code's text below the answer, not in the model's
    assert row["answer_model"] == "All fine." and row["key_fact_recall_model"] == 0.0
    assert 0 < row["model_share"] < 0.2 and not row["degenerate"]


async def test_a_wrong_answer_scores_low(eval_settings):
    case = CASES["interact-01"]  # the thesaurus finds a bleeding risk; the answer omits it
    args = {"drug_names": ["warfarin", "ibuprofen"]}
    llm = scripted("TOOL_NEEDED", "check_drug_interactions", args, "All fine.")
    async with EvalEnvironment(eval_settings, llm, classifiers={}) as env:
        record = await env.run(case)
    row = score(case, record)
    assert record.result.final_response.startswith("All fine.")
    assert row["tool_exact"] is True and row["key_fact_recall"] == 0.0


async def test_ehr_outage_and_direct_cases_through_evaluate(eval_settings):
    chart = scripted(
        "TOOL_NEEDED",
        "get_patient_chart",
        {"patient_id": "abc-123"},
        "The patient record could not be loaded just now.",
    )
    direct = scripted("DIRECT", None, {}, "Naloxone reverses it; check_drug_safety not needed.")

    def respond(messages: Sequence[Message], schema: type | None) -> Any:
        text = " ".join(str(m.content) for m in messages)
        return (direct if "opioid" in text else chart)._next(messages, schema)

    cases = [CASES["failure-08"], CASES["direct-13"]]
    frame = await evaluate(cases, eval_settings, ScriptedBackend(responder=respond), classifiers={})
    outage, answer = frame.to_dict("records")
    assert outage["tools_called"] == "get_patient_chart"
    assert outage["key_fact_recall"] == 1.0 and not outage["forbidden"]
    assert answer["route"] == "DIRECT" and answer["key_fact_recall"] == 1.0
    table = category_table(frame).set_index("category")
    assert table.loc["all", "n"] == 2 and table.loc["direct", "route_ok"] == 1.0


@pytest.mark.parametrize(("backend", "labelled"), [("llamacpp", True), ("scripted", False)])
async def test_knowledge_answers_are_scored_as_the_app_shows_them(settings, backend, labelled):
    """On the embedded backend the app grounds or labels a knowledge answer; so must the
    evaluation, or it would score answers no clinician sees."""
    case = CASES["direct-13"]
    llm = scripted("DIRECT", None, {}, "Naloxone reverses an opioid overdose.")
    # ten abstracts, none on opioids: the index is built fast and covers nothing here
    eval_settings = settings.model_copy(update={"backend": backend, "literature_index_size": 10})
    async with EvalEnvironment(eval_settings, llm, classifiers={}) as env:
        record = await env.run(case)
    answer = record.result.final_response
    assert answer.startswith("Naloxone reverses an opioid overdose.")
    assert answer.endswith(UNVERIFIED_NOTE) is labelled


@pytest.mark.real_model
async def test_one_case_on_the_real_model(settings, real_llm):
    case = CASES["safety-01"]
    async with EvalEnvironment(settings, real_llm) as env:
        record = await env.run(case)
    row = score(case, record)
    assert record.result.final_response.strip()
    assert row["model_calls"] >= 1 and row["prompt_tokens"] > 0
    assert 0 < row["first_event_s"] < row["latency_s"]
    assert row["route"] in ("DIRECT", "TOOL_NEEDED", "ASK")
    if "check_drug_safety" in row["tools_called"]:
        assert any("dofetilide" in url.lower() for url in record.requests)

"""The evaluation harness end to end: the real agent, embedded FHIR, recorded services.

Logic on the scripted model (what reaches the model, what is scored); one case on the
real embedded model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest
from scripted_quotes import statements

from docgemma.agent.answer.compose import UNVERIFIED_NOTE
from docgemma.config import Settings
from docgemma.llm.scripted import ScriptedBackend
from docgemma.llm.types import Message
from experiments.evaluation.cases import load_eval_cases
from experiments.evaluation.harness import EvalEnvironment
from experiments.evaluation.run import evaluate
from experiments.evaluation.scoring import category_table, score

CASES = {c.id: c for c in load_eval_cases()}


Said = list[tuple[str, str]]
"""Cited statements as (words of the quoted source sentence, statement)."""


def scripted(intent: str, tool: str | None, args: dict, answer: str | Said) -> ScriptedBackend:
    """Answers each structured call by its schema's fields: the cited answer from ``answer``
    when it is statements, free text from it when it is a string."""

    def respond(_: Sequence[Message], schema: type | None) -> Any:
        fields = set(schema.model_fields) if schema else set()
        if schema is None:
            return answer
        if "statements" in fields:
            return statements(schema, [] if isinstance(answer, str) else answer)
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
def eval_settings(indexed_settings: Settings) -> Settings:
    return indexed_settings.model_copy(update={"backend": "scripted"})


async def test_recorded_label_reaches_the_model_and_the_turn_scores_full(eval_settings):
    case = CASES["safety-01"]
    answer = [
        (
            "mainly torsade de pointes, associated with QT prolongation",
            "Dofetilide can cause torsade de pointes with QT prolongation.",
        ),
        (
            "for at least 3 days in a facility that provides creatinine clearance calculation",
            "Start it only in a facility with continuous ECG monitoring for at least 3 days.",
        ),
    ]
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
    """The source answers on the second try; the statement quoting its boxed warning is
    the model's text, verified, and scored as such."""
    case = CASES["failure-03"]  # openFDA fails once, then answers
    said = [
        (
            "WARNING: LACTIC ACIDOSIS",
            "Metformin carries a boxed warning of lactic acidosis.",
        )
    ]
    llm = scripted("TOOL_NEEDED", "check_drug_safety", {"drug_name": "metformin"}, said)
    async with EvalEnvironment(eval_settings, llm, classifiers={}) as env:
        record = await env.run(case)
    assert sum("api.fda.gov" in url for url in record.requests) == 2
    assert "LACTIC ACIDOSIS" in prompts_text(llm)
    assert record.result.final_response.startswith(said[0][1] + " [1]")
    row = score(case, record)
    assert row["tool_exact"] is True and row["answer_model"].startswith(said[0][1])
    assert not row["degenerate"] and not row["declined"]


async def test_a_statement_its_source_does_not_hold_is_never_scored(eval_settings):
    case = CASES["interact-01"]  # the thesaurus finds a bleeding risk; the answer denies it
    args = {"drug_names": ["warfarin", "ibuprofen"]}
    denial = [("warfarin + ibuprofen", "Warfarin and ibuprofen do not interact.")]
    llm = scripted("TOOL_NEEDED", "check_drug_interactions", args, denial)
    async with EvalEnvironment(eval_settings, llm, classifiers={}) as env:
        record = await env.run(case)
    row = score(case, record)
    assert "do not interact" not in record.result.final_response
    # the check's own finding is the answer, quoted by code, and scored as code's text
    assert record.result.final_response.startswith("From the interaction reference:")
    assert row["tool_exact"] is True and row["key_fact_recall_model"] == 0.0
    assert row["key_fact_recall"] > 0


async def test_ehr_outage_and_direct_cases_through_evaluate(eval_settings):
    chart = scripted(
        "TOOL_NEEDED",
        "get_patient_chart",
        {"patient_id": "abc-123"},
        [],
    )
    direct = scripted("DIRECT", None, {}, [])

    def respond(messages: Sequence[Message], schema: type | None) -> Any:
        text = " ".join(str(m.content) for m in messages)
        return (direct if "diaphragm" in text else chart)._next(messages, schema)

    cases = [CASES["failure-08"], CASES["direct-03"]]
    frame = await evaluate(cases, eval_settings, ScriptedBackend(responder=respond), classifiers={})
    outage, answer = frame.to_dict("records")
    assert outage["tools_called"] == "get_patient_chart" and not outage["forbidden"]
    assert "could not" in outage["answer"]
    assert answer["route"] == "DIRECT" and answer["declined"]
    table = category_table(frame).set_index("category")
    assert table.loc["all", "n"] == 2 and table.loc["direct", "route_ok"] == 1.0


@pytest.mark.parametrize(("may", "labelled"), [(False, False), (True, True)])
async def test_knowledge_answers_are_scored_as_the_app_shows_them(settings, may, labelled):
    """A model that may not answer from memory declines what no source covers; one that
    may answers under the unverified label. The evaluation scores what the app shows."""
    case = CASES["direct-13"]
    llm = scripted("DIRECT", None, {}, "Naloxone reverses an opioid overdose.")
    # ten abstracts, none on opioids: the index is built fast and covers nothing here
    eval_settings = settings.model_copy(
        update={
            "backend": "scripted",
            "served_answers_from_memory": may,
            "literature_index_size": 10,
        }
    )
    async with EvalEnvironment(eval_settings, llm, classifiers={}) as env:
        record = await env.run(case)
    answer = record.result.final_response
    assert answer.startswith("Naloxone reverses an opioid overdose.") is labelled
    assert answer.endswith(UNVERIFIED_NOTE) is labelled
    assert record.result.confidence_level == "low"


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


def test_ids_pick_cases_and_sessions_alike():
    from experiments.evaluation.run import pick

    cases, sessions = pick("both", None, ["prescribe-01", "sess-write-03"], True, None)
    assert [c.id for c in cases] == ["prescribe-01"]
    assert [s.id for s in sessions] == ["sess-write-03"]
    cases, sessions = pick("both", None, None, True, None)
    assert len(cases) > 1 and len(sessions) > 1

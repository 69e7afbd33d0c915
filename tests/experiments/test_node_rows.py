"""The design's node rows as an experiment: scored on a scripted model, a subset on a real one."""

from __future__ import annotations

import json
from typing import Any

import pytest
from datasets import load_from_disk

from docgemma.agent.classifiers import load_classifiers
from docgemma.agent.deps import AgentDeps
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.registry import build_registry
from experiments.node_rows import evaluate_rows, load_node_rows, node_accuracy, save


def scripted_replies(rows) -> list[Any]:
    """Right answers for every row except intent, where the model always says DIRECT."""
    replies: list[Any] = []
    for row in rows:
        expected = row.expected
        if row.node == "intent_classify":
            replies.append({"intent": "DIRECT", "task_summary": "s", "suggested_tool": None})
        elif row.node == "tool_select":
            args = {  # a free text differs; a closed field keeps a value of its vocabulary
                k: ("a different note" if k in row.free_args and k.endswith("_text") else v)
                for k, v in expected["args"].items()
            }
            replies += [{"tool_name": expected["tool"]}, args]
        elif row.node == "result_classify":
            replies.append({"quality": expected["quality"], "brief_summary": "s"})
        elif expected["action"].startswith("retry_"):
            replies.append({"strategy": expected["action"], "reasoning": "transient"})
    return replies


async def test_rows_are_scored_per_node_and_credit_who_decided(settings) -> None:
    rows = load_node_rows()
    assert {r.node for r in rows} == {
        "intent_classify",
        "tool_select",
        "result_classify",
        "error_handler",
    }
    llm_only = settings.model_copy(
        update={"intent_classifier": "llm", "tool_classifier": "llm", "result_classifier": "llm"}
    )
    llm = ScriptedBackend(scripted_replies(rows))
    deps = AgentDeps(settings=llm_only, llm=llm, registry=build_registry())
    frame = await evaluate_rows(rows, deps)
    table = node_accuracy(frame).set_index("node")
    # two of the four intent rows are DIRECT; code overrules both of the model's wrong
    # DIRECTs: one about a patient's record ("... check his meds"), one about a drug (its
    # label answers, on a model that may not answer from memory); a note's free text is not
    # scored
    assert table.loc["intent_classify", "accuracy"] == 0.75
    assert table.loc[["tool_select", "result_classify", "error_handler"], "accuracy"].eq(1).all()
    skip = frame.set_index("id").loc["error-drug-not-in-database"]
    assert (skip["decided_by"], skip["model_calls"]) == ("code", 0)
    overruled = frame.set_index("id").loc[["intent-find-patient-meds", "intent-fda-warnings"]]
    assert list(overruled["decided_by"]) == ["code", "code"]
    assert overruled.loc["intent-find-patient-meds", "correct"]
    others = frame[(frame["node"] != "error_handler") & ~frame["id"].isin(overruled.index)]
    assert set(others["decided_by"]) == {"model"}
    note = json.loads(frame.set_index("id").loc["select-note-not-chart", "got"])
    assert note["args"]["note_text"] == "a different note"
    assert not llm._queue  # every reply was consumed: each row asked the model what it should


@pytest.mark.real_model
async def test_a_subset_on_the_real_model_and_classifiers(settings, real_llm, tmp_path) -> None:
    """Gemma 3 270M with its profile's embedding classifiers, as ``experiments nodes`` runs."""
    ids = {"intent-greeting", "select-fda-warnings", "result-timeout", "error-drug-not-in-database"}
    rows = [r for r in load_node_rows() if r.id in ids]
    deps = AgentDeps(
        settings=settings,
        llm=real_llm,
        registry=build_registry(),
        classifiers=load_classifiers(settings),
    )
    frame = await evaluate_rows(rows, deps)
    by_id = frame.set_index("id")
    # the profile's embedding classifiers decide intent and tool; they are deterministic
    assert by_id.loc["intent-greeting", "decided_by"] == "embedding classifier"
    assert by_id.loc["intent-greeting", "correct"]
    assert by_id.loc["select-fda-warnings", "decided_by"] == "embedding classifier"
    assert json.loads(by_id.loc["select-fda-warnings", "got"])["tool"] == "check_drug_safety"
    assert by_id.loc["select-fda-warnings", "model_calls"] >= 1  # the arguments are the model's
    # a failed call is an error whatever the classifier says; a drug not found is skipped by code
    assert by_id.loc[["result-timeout", "error-drug-not-in-database"], "correct"].all()
    folder = save(frame, settings, "gemma3-270m", tmp_path)
    assert folder.parent.name == "nodes" and folder.name.startswith("gemma3-270m-")
    assert len(load_from_disk(str(folder / "dataset"))) == 4
    assert "| error_handler | 1 | 1 | 1.00 | code |" in (folder / "summary.md").read_text()

"""The event → timeline mapping, step by step."""

from __future__ import annotations

import pytest

from docgemma.agent.outcome import TimelineEntry
from docgemma.events import (
    AnswerToken,
    ApprovalRequested,
    Decision,
    ErrorRaised,
    LLMUsage,
    NodeFinished,
    NodeStarted,
    ResultClassified,
    ThinkingToken,
    ToolCalled,
    ToolFinished,
    parse_event,
)
from docgemma.ui.timeline import ROOT_TITLE, Timeline, decision_words


def meta(messages, title):
    return next(m["metadata"] for m in messages if m["metadata"]["title"] == title)


def test_node_goes_pending_then_done_with_its_duration():
    tl = Timeline("t1", started=0.0).apply(
        NodeStarted(node="intent_classify", label="Understanding"), 1.0
    )
    msgs = tl.messages()
    assert msgs[0]["metadata"]["title"] == ROOT_TITLE and msgs[0]["metadata"]["status"] == "pending"
    assert meta(msgs, "Understanding")["status"] == "pending"
    assert "duration" not in meta(msgs, "Understanding")
    tl.apply(NodeFinished(node="intent_classify", duration_s=0.42), 1.5)
    step = meta(tl.messages(), "Understanding")
    assert step["status"] == "done" and step["duration"] == 0.42
    assert step["parent_id"] == "t1-root"


def test_duration_falls_back_to_the_clock():
    tl = (
        Timeline("t", 0.0)
        .apply(NodeStarted(node="synthesize"), 2.0)
        .apply(NodeFinished(node="synthesize"), 3.25)
    )
    assert meta(tl.messages(), "Synthesize")["duration"] == 1.25


def test_tool_call_nests_under_its_node_with_args_and_result():
    tl = Timeline("t", 0.0)
    tl.apply(NodeStarted(node="tool_execute", label="Consulting a source"), 0.0)
    tl.apply(
        ToolCalled(
            node="tool_execute",
            tool="check_drug_safety",
            tool_label="Drug Safety Report",
            args={"drug_name": "dofetilide", "unused": None},
        ),
        0.1,
    )
    pending = meta(tl.messages(), "Drug Safety Report")
    assert pending["status"] == "pending"
    node_id = meta(tl.messages(), "Consulting a source")["id"]
    assert pending["parent_id"] == node_id
    tl.apply(
        ToolFinished(
            node="tool_execute",
            tool="check_drug_safety",
            tool_label="Drug Safety Report",
            ok=True,
            duration_s=0.8,
            summary="boxed warning found",
        ),
        0.9,
    )
    tl.apply(ResultClassified(node="result_classify", quality="success_rich"), 1.0)
    msgs = tl.messages()
    tool = next(m for m in msgs if m["metadata"]["title"] == "Drug Safety Report")
    assert tool["metadata"]["status"] == "done" and tool["metadata"]["duration"] == 0.8
    assert "drug_name = 'dofetilide'" in tool["content"] and "unused" not in tool["content"]
    assert "boxed warning found" in tool["content"]
    assert "Assessed: **it answers the request**" in tool["content"]  # not "success_rich"


def test_failed_tool_and_error_are_marked():
    tl = Timeline("t", 0.0)
    tl.apply(NodeStarted(node="tool_execute"), 0.0)
    tl.apply(ToolCalled(node="tool_execute", tool="t", tool_label="Lookup"), 0.0)
    tl.apply(
        ToolFinished(
            node="tool_execute", tool="t", tool_label="Lookup", ok=False, error_type="timeout"
        ),
        1.0,
    )
    tl.apply(
        ErrorRaised(
            node="error_handler", label="Source unavailable", message="The lookup timed out."
        ),
        1.1,
    )
    msgs = tl.messages()
    failed = next(m for m in msgs if m["metadata"]["title"] == "⚠ Lookup")
    assert "timeout" in failed["content"]
    err = next(m for m in msgs if m["metadata"]["title"] == "⚠ Source unavailable")
    assert err["content"] == "The lookup timed out." and err["metadata"]["status"] == "done"


def test_a_repeated_node_is_shown_as_a_retry():
    tl = Timeline("t", 0.0)
    for i in range(2):
        tl.apply(NodeStarted(node="tool_select", label="Choosing a source"), i)
        tl.apply(NodeFinished(node="tool_select"), i + 0.5)
    titles = [m["metadata"]["title"] for m in tl.messages()]
    assert titles[1:] == ["Choosing a source", "Choosing a source (retry 1)"]


def test_decisions_usage_and_approval_are_recorded():
    tl = Timeline("t", 0.0)
    tl.apply(NodeStarted(node="intent_classify", label="Understanding"), 0.0)
    tl.apply(
        Decision(node="intent_classify", decision="TOOL_NEEDED", reason="drug safety question"), 0.1
    )
    tl.apply(
        LLMUsage(
            node="intent_classify",
            purpose="intent",
            prompt_tokens=300,
            completion_tokens=20,
            latency_s=1.5,
        ),
        0.2,
    )
    tl.apply(
        ApprovalRequested(
            node="tool_execute",
            tool="prescribe_medication",
            tool_label="Prescription",
            summary="Prescription: Metformin 500 mg",
        ),
        0.3,
    )
    msgs = tl.messages()
    step = next(m for m in msgs if m["metadata"]["title"] == "Understanding")
    assert "**needs a lookup** — drug safety question" in step["content"]
    assert "300 tokens read, 20 written" in step["content"]
    approval = next(m for m in msgs if m["metadata"]["title"] == "Awaiting clinician approval")
    assert approval["content"] == "Prescription: Metformin 500 mg"


@pytest.mark.parametrize(
    ("label", "words"),
    [
        ("success_rich", "it answers the request"),
        ("error_fatal", "the source failed"),
        ("TOOL_NEEDED", "needs a lookup"),
        ("synthesize", "next: writing the answer"),
        ("search_knowledge_base", "search knowledge base"),
    ],
)
def test_a_decision_label_is_shown_in_words(label: str, words: str) -> None:
    assert decision_words(label) == words


def test_a_decision_written_for_the_clinician_shows_its_title_not_its_label():
    tl = Timeline("t", 0.0)
    tl.apply(NodeStarted(node="input_assembly", label="Reading the question"), 0.0)
    tl.apply(
        Decision(
            node="input_assembly",
            decision="cant_miss",
            reason="meningococcal_rash",
            title="Can't-miss diagnoses to exclude first",
            detail="Rule `meningococcal_rash` (A non-blanching rash; matched “spots”)",
        ),
        0.1,
    )
    step = next(m for m in tl.messages() if m["metadata"]["title"] == "Reading the question")
    assert (
        "**Can't-miss diagnoses to exclude first** — Rule `meningococcal_rash`" in step["content"]
    )
    assert "**cant_miss**" not in step["content"]


def test_answer_tokens_do_not_touch_the_timeline():
    tl = Timeline("t", 0.0).apply(AnswerToken(node="synthesize", text="Hi"), 0.0)
    assert len(tl.messages()) == 1


def test_thinking_is_its_own_message_until_the_answer_starts():
    tl = Timeline("t", 0.0).apply(NodeStarted(node="synthesize"), 0.0)
    tl.apply(ThinkingToken(node="synthesize", text="weigh "), 1.0)
    tl.apply(ThinkingToken(node="synthesize", text="options"), 2.0)
    thinking = tl.messages()[-1]
    assert thinking["metadata"]["title"] == "Thinking" and "parent_id" not in thinking["metadata"]
    assert thinking["content"] == "weigh options" and thinking["metadata"]["status"] == "pending"
    tl.apply(AnswerToken(node="synthesize", text="Answer"), 4.5)
    assert tl.messages()[-1]["metadata"] == {
        "title": "Thinking",
        "id": "t-thinking",
        "status": "done",
        "duration": 3.5,
    }
    assert len(tl.close(5.0).messages()) == 3  # root, the node, the thinking


def test_close_finishes_pending_steps_and_sets_total():
    tl = Timeline("t", 10.0).apply(NodeStarted(node="synthesize"), 10.0).close(12.5)
    msgs = tl.messages()
    assert msgs[0]["metadata"]["status"] == "done" and msgs[0]["metadata"]["duration"] == 2.5
    assert msgs[1]["metadata"]["status"] == "done" and msgs[1]["metadata"]["duration"] == 2.5
    assert msgs[0]["metadata"]["log"] == "1/1 steps"


def test_close_without_events_uses_the_agents_own_entries():
    entries = [
        TimelineEntry(
            title="Fallback answer", detail="model unavailable", status="error", duration_s=0.1
        )
    ]
    msgs = Timeline("t", 0.0).close(1.0, entries).messages()
    assert (
        msgs[1]["metadata"]["title"] == "⚠ Fallback answer"
        and msgs[1]["content"] == "model unavailable"
    )


def test_ids_are_unique_per_turn_and_parsed_events_work():
    a = (
        Timeline("t1", 0.0)
        .apply(parse_event({"kind": "node_started", "node": "x"}), 0.0)
        .messages()
    )
    b = (
        Timeline("t2", 0.0)
        .apply(parse_event({"kind": "node_started", "node": "x"}), 0.0)
        .messages()
    )
    ids = {m["metadata"]["id"] for m in a + b}
    assert len(ids) == 4

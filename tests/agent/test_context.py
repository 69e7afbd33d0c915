"""Prompt sections from state: a clinical-context line only when it adds to the question."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from docgemma.agent.answer.sources import gather
from docgemma.agent.context import clinical_context
from docgemma.agent.nodes.synthesize import cited_messages, memory_messages
from docgemma.agent.schemas import TASK_SUMMARY_CHARS
from docgemma.agent.state import ToolResult
from docgemma.agent.tool_run import to_result
from docgemma.tools.base import ToolOutcome
from docgemma.tools.registry import build_registry
from docgemma.tools.text import shorten

DEPS = SimpleNamespace(registry=build_registry(), persona="")
QUESTION = "Find patient Maria Garcia, check her chart, and check the FDA warnings for warfarin."
LONG = "Check interactions " + "between warfarin and aspirin, " * 10


@pytest.mark.parametrize(
    ("query", "summary", "line"),
    [
        (QUESTION, "", ""),
        (QUESTION, QUESTION, ""),
        (QUESTION, "  Find patient  Maria Garcia, check her chart,", ""),  # a cut copy
        (LONG, shorten(LONG, TASK_SUMMARY_CHARS), ""),  # the embedding classifier's copy
        (
            QUESTION,
            "Anticoagulated patient; warfarin label",
            "Clinical context: Anticoagulated patient; warfarin label\n",
        ),
    ],
)
def test_clinical_context_only_when_it_adds_to_the_question(query, summary, line) -> None:
    assert clinical_context({"user_query": query, "task_summary": summary}) == line


def test_the_synthesis_prompt_reads_a_copied_summary_once() -> None:
    state = {"user_query": QUESTION, "task_summary": shorten(QUESTION, TASK_SUMMARY_CHARS)}
    prompt = memory_messages(state, DEPS)[-1].content
    assert prompt.count("Maria Garcia") == 1 and "Clinical context" not in prompt


def result_of(text: str) -> ToolResult:
    registry = build_registry()
    spec = registry["check_drug_interactions"]
    outcome = ToolOutcome(data={"pairs": 1}, formatted=text)
    return to_result(spec, {}, outcome, registry.labels(), retry=False, executed=True)


HISTORY = [
    {"role": "user", "content": "Do sertraline and sumatriptan interact?"},
    {"role": "assistant", "content": "Yes: a risk of serotonin syndrome."},
]


@pytest.mark.parametrize("consulted", [True, False], ids=["source-consulted", "direct"])
def test_an_answer_from_a_source_is_not_shown_the_earlier_turns(consulted: bool) -> None:
    """Given a tool's result, a small model answered the earlier questions again,
    from their answers or, shown only the questions, anew. A direct follow-up ("explain that
    more simply") needs them."""
    state = {
        "user_query": "Check the interactions of dofetilide, azithromycin and atorvastatin.",
        "conversation_history": HISTORY,
        "tool_results": [result_of("azithromycin + atorvastatin: rhabdomyolysis.")]
        if consulted
        else [],
    }
    results = state["tool_results"]
    if consulted:
        prompt = cited_messages(state, DEPS, gather(results), results)[-1].content
    else:
        prompt = memory_messages(state, DEPS)[-1].content
    assert ("sertraline" in prompt) is not consulted

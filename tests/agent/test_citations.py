"""One ``[n]`` numbering per answer: a drug label and a literature search in one turn
no longer both say ``[1]``, and the synthesis prompt shows the model those numbers."""

from __future__ import annotations

from typing import Any

import pytest

from docgemma.agent.citations import drop_unknown_citations, number_sources
from docgemma.agent.nodes.synthesize import synthesis_messages
from docgemma.agent.state import ToolResult
from docgemma.tools.registry import build_registry

LABEL = {"title": "FDA drug label: warfarin", "url": "https://dailymed.example/w", "kind": "label"}
PAPER_A = {"title": "Warfarin and aspirin bleeding", "url": "https://pmc.example/a"}
PAPER_B = {"title": "Anticoagulant interactions", "url": "https://pmc.example/b"}


def result(label: str, text: str, sources: list[dict[str, Any]], error: str | None = None):
    return ToolResult(
        tool_name=label.lower().replace(" ", "_"),
        tool_label=label,
        args={},
        result={},
        formatted_result=text,
        error_type=error,
        entity=None,
        missing_fields=[],
        suggestions=[],
        patient_matches=None,
        sources=sources,
        quality=None,
        retry=False,
        executed=True,
        unchecked=[],
        found=[],
    )


def turn_results() -> list[ToolResult]:
    return [
        result("Drug Safety Report", "Boxed warning: bleeding.", [LABEL]),
        result("Trials", "failed", [{"title": "never shown"}], error="api_error"),
        result(
            "Medical Literature",
            "[1] Warfarin and aspirin bleeding.\n[2] Anticoagulant interactions.\n[7] stray",
            [PAPER_A, PAPER_B],
        ),
        result("Medical Literature", "[1] Anticoagulant interactions.", [PAPER_B]),
    ]


def test_sources_are_numbered_once_across_results() -> None:
    numbered = number_sources(turn_results())
    assert [s["title"] for s in numbered.sources] == [
        LABEL["title"],
        PAPER_A["title"],
        PAPER_B["title"],
    ]
    label_text, literature, repeat = numbered.texts
    assert label_text.endswith("Cite as: [1] FDA drug label: warfarin")
    assert "[2] Warfarin and aspirin bleeding." in literature
    assert "[3] Anticoagulant interactions." in literature
    assert "[1] Warfarin" not in literature
    assert "[7] stray" in literature  # a number the tool did not give a source stays as written
    assert repeat.startswith("[Medical Literature]\n[3] Anticoagulant")  # duplicate keeps its n


def test_the_synthesis_prompt_asks_for_citations_with_those_numbers() -> None:
    state = {"user_query": "Warfarin with aspirin?", "tool_results": turn_results()}
    system, user = synthesis_messages(
        state, build_registry(), [], persona="You are a cardiology pharmacist."
    )
    assert system.content.startswith("You are a cardiology pharmacist.")
    assert "Cite the numbered sources" in system.content
    assert "[2] Warfarin and aspirin bleeding." in user.content
    assert "Cite as: [1] FDA drug label: warfarin" in user.content
    assert "never shown" not in user.content


@pytest.mark.parametrize(
    ("answer", "count", "shown"),
    [
        ("First-line is metformin [1].", 0, "First-line is metformin."),
        ("Bleeding risk [1] and QT [3], see [2].", 2, "Bleeding risk [1] and QT, see [2]."),
        ("No markers here.", 3, "No markers here."),
    ],
)
def test_citations_of_no_source_are_dropped(answer: str, count: int, shown: str) -> None:
    assert drop_unknown_citations(answer, count) == shown

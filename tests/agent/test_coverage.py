"""What each lookup found reaches the clinician even when the answer leaves it out
(``agent.coverage``)."""

from __future__ import annotations

import pytest

from docgemma.agent.coverage import UNMENTIONED_HEADER, unmentioned, with_unmentioned
from docgemma.agent.state import ToolResult
from docgemma.kb import KBHit
from docgemma.kb.topics import Severity
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.base import Source, ToolOutcome
from docgemma.tools.drug_safety import BOXED_WARNING
from docgemma.tools.knowledge_base import format_result
from docgemma.tools.registry import build_registry

from .conftest import intent, quality, run, select
from .fakes import tool_result

REGISTRY = build_registry()
QUESTION = "Find patient Maria Garcia, check her chart, and check the FDA warnings for warfarin."
FOUND = "Maria Garcia, born 1948, ID mgarcia-001."
CHART = "Conditions: atrial fibrillation, hypertension. Medications: warfarin 5 mg. INR 3.1."
LABEL = "Boxed warning: warfarin can cause major or fatal bleeding [1]."
CHART_ONLY = "Maria Garcia has atrial fibrillation and takes warfarin 5 mg; her INR is 3.1."


def result(tool: str, text: str, *, sources: int = 0, error: str | None = None) -> ToolResult:
    titles = [{"title": f"{tool} source {k}", "kind": "label"} for k in range(sources)]
    return tool_result(tool, text, error_type=error, sources=titles)


THREE = [
    result("search_patient", FOUND),
    result("get_patient_chart", CHART, sources=1),
    result("check_drug_safety", LABEL, sources=1),
]


def test_a_lookup_the_answer_leaves_out_is_listed_with_its_source_number() -> None:
    """A small model's answer to three-02 summarised the chart and never named the warning."""
    assert unmentioned(CHART_ONLY, QUESTION, THREE, REGISTRY) == [
        f"- {REGISTRY.label('check_drug_safety')} [2]: {LABEL.replace('[1]', '[2]')}"
    ]


@pytest.mark.parametrize(
    "answer",
    [
        f"{CHART_ONLY} Warfarin carries a boxed warning for bleeding.",  # its own words
        f"{CHART_ONLY} See the label [2].",  # its source cited
    ],
)
def test_a_lookup_the_answer_mentions_or_cites_is_not_repeated(answer: str) -> None:
    assert unmentioned(answer, QUESTION, THREE, REGISTRY) == []


@pytest.mark.parametrize(
    "answer",
    [
        f"{CHART_ONLY} Recheck it in 2 weeks [1].",  # a lone digit, a marker of the chart
        f"{CHART_ONLY} This may cause problems.",  # one common word of the label
    ],
)
def test_a_lone_digit_or_one_common_word_does_not_mention_a_lookup(answer: str) -> None:
    [listed] = unmentioned(answer, QUESTION, THREE, REGISTRY)
    assert "fatal bleeding" in listed


def test_a_source_two_lookups_share_is_no_citation_of_either() -> None:
    """Every interaction check cites the same thesaurus; citing it names neither check."""
    check = result("check_drug_interactions", "Warfarin + aspirin: major bleeding risk.")
    check["sources"] = [{"title": "ANSM thesaurus", "kind": "reference"}]
    other = result("check_drug_interactions", "Sertraline + tramadol: serotonin syndrome.")
    other["sources"] = [*check["sources"], *check["sources"]]
    listed = unmentioned("Avoid aspirin with warfarin: bleeding [1].", "", [check, other], REGISTRY)
    assert listed == [f"- {other['tool_label']} [1]: Sertraline + tramadol: serotonin syndrome."]


FULL_LABEL = (
    "FDA label for Coumadin / warfarin:\n"
    f"{BOXED_WARNING} WARNING: BLEEDING RISK. Warfarin can cause major or fatal bleeding.\n"
    "Contraindications: Pregnancy. Hemorrhagic tendencies or blood dyscrasias. Recent or "
    "planned surgery of the central nervous system or eye."
)
QUOTES_CONTRAINDICATIONS = (
    f"{CHART_ONLY} She is not pregnant, has no hemorrhagic tendencies or blood dyscrasias "
    "and no planned surgery of the central nervous system or eye [2]."
)


@pytest.mark.parametrize(
    ("answer", "listed"),
    [
        (QUOTES_CONTRAINDICATIONS, True),  # three-02: the label's minor facts, cited
        (f"{CHART_ONLY} Warfarin has a boxed warning [2].", True),  # that it has one, not what
        (f"{CHART_ONLY} Warfarin can cause major or fatal bleeding [2].", False),
        (f"{CHART_ONLY} The label warns of fatal bleeding.", False),
    ],
)
def test_a_lookup_with_a_main_finding_is_mentioned_only_by_that_finding(
    answer: str, listed: bool
) -> None:
    three = [*THREE[:2], result("check_drug_safety", FULL_LABEL, sources=1)]
    found = unmentioned(answer, QUESTION, three, REGISTRY)
    assert bool(found) is listed
    assert not found or "major or fatal bleeding" in found[0]


def test_without_its_main_finding_a_lookup_is_mentioned_as_any_other() -> None:
    no_boxed = FULL_LABEL.replace(
        f"{BOXED_WARNING} WARNING: BLEEDING RISK. Warfarin can cause major or fatal bleeding.",
        "No boxed warning on this label.",
    )
    three = [*THREE[:2], result("check_drug_safety", no_boxed, sources=1)]
    assert unmentioned(QUOTES_CONTRAINDICATIONS, QUESTION, three, REGISTRY) == []


def test_a_single_lookup_failed_ones_and_the_patient_search_are_not_listed() -> None:
    failed = result("check_drug_safety", "unavailable", error="service_unavailable")
    assert unmentioned("Nothing.", QUESTION, THREE[2:], REGISTRY) == []
    assert unmentioned(CHART_ONLY, QUESTION, [*THREE[:2], failed], REGISTRY) == []


@pytest.mark.parametrize(
    ("answer", "listed"),
    [
        ("Warfarin carries a boxed warning [1].", True),  # safety-01's brief answer, in kind
        ("Yes: warfarin can cause major or fatal bleeding [1].", False),
    ],
)
def test_a_single_lookup_is_checked_for_its_main_finding_only(answer: str, listed: bool) -> None:
    label = [result("check_drug_safety", FULL_LABEL, sources=1)]
    question = "Does warfarin carry a boxed warning?"
    assert bool(unmentioned(answer, question, label, REGISTRY)) is listed
    chart = [result("get_patient_chart", CHART, sources=1)]
    assert unmentioned("She is well.", question, chart, REGISTRY) == []


GOUT = KBHit(
    page_id="gout",
    title="Gout",
    category="musculoskeletal",
    subcategory="joints",
    severity=Severity.URGENT_PRIMARY_CARE,
    score=0.61,
    relevance=0.9,
    content="Symptoms: Gout causes sudden, severe pain in a joint, often the big toe.",
    source="DocGemma demonstration page: Gout",
)


@pytest.mark.parametrize(
    ("answer", "listed"),
    [  # kb-03's answer restated the question and never named the page
        (
            "The primary symptom is a painful red swollen big toe joint that came on overnight.",
            True,
        ),
        ("This fits gout: sudden severe pain in the big toe [1].", False),
    ],
)
def test_a_condition_page_lookup_is_mentioned_by_the_best_pages_title(
    answer: str, listed: bool
) -> None:
    question = "Search the knowledge base: painful red swollen big toe joint overnight."
    pages = result(
        "search_knowledge_base", format_result(question, [GOUT], True, [], None), sources=1
    )
    found = unmentioned(answer, question, [pages], REGISTRY)
    assert bool(found) is listed
    assert not found or "Gout — similarity 0.61" in found[0]


def test_the_listed_lookups_follow_the_answer_under_a_header() -> None:
    assert with_unmentioned("Answer.", []) == "Answer."
    listed = with_unmentioned("Answer.", ["- a", "- b"])
    assert listed == f"Answer.\n\n{UNMENTIONED_HEADER}\n- a\n- b"


async def test_the_clinician_gets_the_warning_the_model_left_out(make_agent, tools) -> None:
    tools.queue("get_patient_chart", ToolOutcome(data={}, formatted=CHART))
    tools.queue(
        "check_drug_safety",
        ToolOutcome(data={}, formatted=LABEL, sources=[Source(title="Label", kind="label")]),
    )
    llm = ScriptedBackend(
        [
            intent(tool="search_patient"),
            select("search_patient"),
            {"name": "Maria Garcia"},
            quality("success_rich"),
            select("get_patient_chart"),
            {"patient_id": "pat-001"},
            quality("success_rich"),
            select("check_drug_safety"),
            {"drug_name": "warfarin"},
            quality("success_rich"),
            CHART_ONLY,
        ]
    )
    _, result = await run(make_agent(llm), QUESTION)
    assert [c.tool for c in result.tool_calls][-1] == "check_drug_safety"
    head, listed = result.final_response.split(f"\n\n{UNMENTIONED_HEADER}\n")
    assert head == CHART_ONLY
    assert "major or fatal bleeding" in listed and "[1]" in listed
    assert any("may not mention" in t.detail for t in result.reasoning_timeline)

"""The turn's sources, numbered once (``answer.sources``)."""

from __future__ import annotations

from docgemma.agent.answer.sources import gather, prompt_text

from ..fakes import tool_result

LITERATURE = (
    "Literature on “croup” — offline index:\n"
    "[1] Dexamethasone in croup. Smith. 2020.\n"
    "    Oral dexamethasone reduced return visits.\n"
    "[2] Heliox for croup. Lee. 2019.\n"
    "    Heliox showed no clear benefit."
)


def test_a_result_listing_several_sources_is_cut_at_its_own_markers() -> None:
    result = tool_result(
        "search_medical_literature",
        LITERATURE,
        sources=[
            {"title": "Dexamethasone in croup", "url": "https://x/1", "kind": "literature"},
            {"title": "Heliox for croup", "url": "https://x/2", "kind": "literature"},
        ],
    )
    first, second = gather([result])
    assert "Oral dexamethasone" in first.text and "Heliox showed" not in first.text
    assert "Heliox showed no clear benefit" in second.text and "Oral dexa" not in second.text
    assert first.text.startswith("Literature on")  # the heading goes with each
    assert first.heading == second.heading == "Literature on “croup” — offline index:"
    assert (first.n, second.n) == (1, 2) and second.source()["url"] == "https://x/2"


def test_sources_are_numbered_across_results_and_shared_by_title() -> None:
    label = {"title": "FDA drug label: warfarin", "kind": "label"}
    a = tool_result("check_drug_safety", "Boxed warning: bleeding.", sources=[label])
    b = tool_result("check_drug_safety", "Boxed warning: bleeding.", sources=[label])
    chart = tool_result("get_patient_chart", "Medications: warfarin 5 mg.")
    passages = gather([a, b, chart], record=("EHR summary of the active patient (p1)", "Age 64."))
    assert [p.n for p in passages] == [1, 2, 3]
    assert [p.kind for p in passages] == ["label", "reference", "ehr"]
    assert passages[1].title == chart["tool_label"]  # a result listing no source: its label


def test_failed_results_are_no_source_and_the_prompt_numbers_each() -> None:
    failed = tool_result("check_drug_safety", "could not be reached", error_type="timeout")
    ok = tool_result("get_patient_chart", "Allergies: penicillin.")
    passages = gather([failed, ok])
    assert len(passages) == 1
    assert prompt_text(passages).startswith(f"[1] {ok['tool_label']}\nAllergies: penicillin.")

"""Proposed calls are checked before they run: a patient ID must come from the clinician."""

from __future__ import annotations

import pytest

from docgemma.agent.entities import drug_dictionary
from docgemma.agent.grounding import Evidence
from docgemma.agent.validation import validate_call
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.registry import build_registry

from .conftest import NOTHING_CITED, intent, quality, run, select

REGISTRY = build_registry()

RX = {"medication_name": "metformin", "dosage": "500 mg", "frequency": "twice daily"}


def check(patient_id: str, query: str, known: list[str] | None = None) -> bool:
    state = {"user_query": query, "active_patient_id": (known or [None])[0]}
    verdict, _ = validate_call(
        REGISTRY["prescribe_medication"],
        {**RX, "patient_id": patient_id},
        evidence=Evidence.of(state),
        has_image=False,
    )
    return verdict.ok


@pytest.mark.parametrize(
    ("patient_id", "query"),
    [
        ("12345", "Prescribe metformin 500 mg twice daily for patient 12345"),
        ("7f3a-91", "Prescribe metformin 500 mg twice daily for 7f3a-91"),
    ],
)
def test_an_id_the_clinician_typed_is_accepted(patient_id: str, query: str) -> None:
    assert check(patient_id, query)


@pytest.mark.parametrize(
    "patient_id",
    ["500", "metformin", "twice", "abc-12"],
    ids=["part-of-a-dose", "drug-name", "plain-word", "prefix-of-an-id"],
)
def test_an_id_made_from_other_words_of_the_query_is_refused(patient_id: str) -> None:
    assert not check(patient_id, "Prescribe metformin 500mg twice daily for abc-123")


def test_a_selected_or_found_patient_is_accepted() -> None:
    assert check("pat-001", "Prescribe metformin 500 mg twice daily", known=["pat-001"])


def test_a_clinician_edit_is_not_checked_against_the_message() -> None:
    verdict, parsed = validate_call(
        REGISTRY["prescribe_medication"],
        {**RX, "patient_id": "pat-9"},
        evidence=None,
        has_image=False,
    )
    assert verdict.ok and parsed is not None


def test_an_optional_value_nobody_gave_is_dropped_not_asked() -> None:
    verdict, parsed = validate_call(
        REGISTRY["find_clinical_trials"],
        {"condition": "heart failure", "status": "completed"},
        evidence=Evidence.of({"user_query": "Any trials for heart failure?"}),
        has_image=False,
    )
    assert verdict.ok and verdict.dropped == ["status"]
    assert parsed is not None and parsed.model_dump(exclude_none=True) == {
        "condition": "heart failure"
    }


@pytest.mark.parametrize(
    ("dosage", "frequency", "saved"),
    [
        ("500 mg twice daily", "twice daily", "500 mg"),
        ("500 mg,  Twice Daily", "twice daily", "500 mg"),
        ("500 mg", "twice daily", "500 mg"),
        ("twice daily", "twice daily", "twice daily"),  # nothing else to keep
        ("500 mg once daily", "twice daily", "500 mg once daily"),  # shown for the clinician
    ],
    ids=["repeated", "case-and-comma", "clean", "only-the-frequency", "a-different-one"],
)
def test_a_dose_that_repeats_the_frequency_is_saved_once(
    dosage: str, frequency: str, saved: str
) -> None:
    query = f"Prescribe metformin {dosage} {frequency} for abc-123"
    args = {**RX, "dosage": dosage, "frequency": frequency, "patient_id": "abc-123"}
    # a message stating two frequencies gives the first: only the clinician's edit says both
    proposal = [] if "once" in dosage else [Evidence.of({"user_query": query})]
    for evidence in (*proposal, None):  # the model's or the edit
        verdict, parsed = validate_call(
            REGISTRY["prescribe_medication"], args, evidence=evidence, has_image=False
        )
        assert verdict.ok and parsed is not None and parsed.dosage == saved
        assert verdict.tidied == ({} if saved == dosage else {"dosage": saved})


@pytest.mark.parametrize(
    ("value", "query", "meant"),
    [
        (
            "dofetilide, azithromycin, trials in atrial fibrillation",
            "Check the FDA warnings for dofetilide, its interaction with azithromycin, "
            "and trials in atrial fibrillation.",
            "dofetilide",
        ),
        (  # the drug after the words asking for the label, not the list's first
            "lisinopril, spironolactone",
            "Check interactions between lisinopril and spironolactone, and the FDA warnings "
            "for spironolactone.",
            "spironolactone",
        ),
        ("Coumadin and Tylenol", "Boxed warnings of Coumadin and Tylenol?", "warfarin"),
        ("warfarin and aspirin", "warfarin and aspirin: anything to know?", "warfarin"),
    ],
    ids=["list-in-order", "named-after-the-request", "brands", "no-request-words"],
)
def test_a_single_drug_argument_naming_several_keeps_the_drug_meant(
    value: str, query: str, meant: str
) -> None:
    verdict, parsed = validate_call(
        REGISTRY["check_drug_safety"],
        {"drug_name": value},
        evidence=Evidence.of({"user_query": query}),
        has_image=False,
    )
    assert verdict.ok and verdict.narrowed == {"drug_name": meant}
    assert parsed is not None and parsed.model_dump() == {"drug_name": meant}


@pytest.mark.parametrize("value", ["dofetilide", "Tylenol", "insulin glargine"])
def test_a_single_drug_argument_is_left_as_written(value: str) -> None:
    verdict, parsed = validate_call(
        REGISTRY["check_drug_safety"],
        {"drug_name": value},
        evidence=Evidence.of({"user_query": f"Any FDA warnings for {value}?"}),
        has_image=False,
    )
    assert verdict.ok and verdict.narrowed == {}
    assert parsed is not None and parsed.model_dump() == {"drug_name": value}


def test_the_clinicians_own_edit_is_never_narrowed() -> None:
    verdict, parsed = validate_call(
        REGISTRY["check_drug_safety"],
        {"drug_name": "warfarin and aspirin"},
        evidence=None,
        has_image=False,
    )
    assert verdict.ok and verdict.narrowed == {}
    assert parsed is not None and parsed.model_dump() == {"drug_name": "warfarin and aspirin"}


THREE_SOURCES = (
    "Check the FDA warnings for dofetilide, its interaction with azithromycin, "
    "and trials in atrial fibrillation."
)


@pytest.mark.parametrize(
    ("value", "query", "meant"),
    [
        ("dofetilide", THREE_SOURCES, "atrial fibrillation"),
        ("dofetilide", "Any trials of dofetilide in atrial fibrillation?", None),
        ("atrial fibrillation", THREE_SOURCES, None),
        ("metformin", "Warnings for metformin, and recruiting trials?", None),
    ],
    ids=["drug-from-elsewhere", "drug-asked-for", "a-condition", "no-condition-named"],
)
def test_a_trial_search_for_a_drug_searches_the_condition_asked_for(
    value: str, query: str, meant: str | None
) -> None:
    verdict, parsed = validate_call(
        REGISTRY["find_clinical_trials"],
        {"condition": value},
        evidence=Evidence.of({"user_query": query}),
        has_image=False,
    )
    assert verdict.ok and verdict.narrowed == ({"condition": meant} if meant else {})
    assert parsed is not None and parsed.model_dump()["condition"] == (meant or value)


@pytest.mark.parametrize(
    ("proposed", "searched"),
    [
        ("search_patient_james_wilson_user_query", "James Wilson"),  # not typed: the message's
        ("patient James Wilson", "James Wilson"),  # the title is left out
        ("Wilson", "Wilson"),  # typed as a name: the model's choice stands
    ],
)
def test_a_name_search_is_for_a_name_the_clinician_typed(proposed: str, searched: str) -> None:
    state = {"user_query": "Search for patient James Wilson"}
    verdict, parsed = validate_call(
        REGISTRY["search_patient"], {"name": proposed}, evidence=Evidence.of(state), has_image=False
    )
    assert verdict.ok and parsed is not None and parsed.model_dump() == {"name": searched}


def test_a_message_that_introduces_no_name_asks_for_it() -> None:
    state = {"user_query": "Pull up the chart of the lady in bed four"}
    verdict, _ = validate_call(
        REGISTRY["search_patient"],
        {"name": "lady in bed four"},
        evidence=Evidence.of(state),
        has_image=False,
    )
    assert not verdict.ok and verdict.missing_fields == ["name"]


@pytest.mark.parametrize(
    ("tool", "args", "query"),
    [
        ("check_drug_safety", {"drug_name": "Is it safe in pregnancy?"}, "Is it safe?"),
        (
            "check_drug_interactions",
            {"drug_names": ["warfarin", "what else does she take for her heart"]},
            "Does warfarin interact with what else does she take for her heart",
        ),
    ],
)
def test_a_sentence_in_a_drug_field_is_no_drug_and_the_drug_is_asked_for(
    tool: str, args: dict, query: str
) -> None:
    verdict, parsed = validate_call(
        REGISTRY[tool], args, evidence=Evidence.of({"user_query": query}), has_image=False
    )
    assert not verdict.ok and parsed is None and verdict.missing_fields == [next(iter(args))]


def test_a_known_drug_of_several_words_is_a_name() -> None:
    query = "Side effects of amoxicillin and clavulanate potassium?"
    verdict, _ = validate_call(
        REGISTRY["check_drug_safety"],
        {"drug_name": "amoxicillin and clavulanate potassium"},
        evidence=Evidence.of({"user_query": query}),
        has_image=False,
    )
    assert verdict.ok


def test_a_sentence_for_a_drug_means_the_one_drug_the_clinician_named_last() -> None:
    state = {
        "user_query": "Is it safe in pregnancy?",
        "conversation_history": [
            {"role": "user", "content": "What are the contraindications of lisinopril?"},
            {"role": "assistant", "content": "…"},
            {"role": "user", "content": "Actually I meant losartan."},
            {"role": "assistant", "content": "…"},
        ],
    }
    verdict, parsed = validate_call(
        REGISTRY["check_drug_safety"],
        {"drug_name": "Is it safe in pregnancy?"},
        evidence=Evidence.of(state),
        has_image=False,
    )
    assert verdict.ok and parsed.drug_name == "losartan"
    assert verdict.restated == {"drug_name": "losartan"}


async def test_an_interaction_check_of_one_drug_reads_that_drugs_label(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_interactions"),
            select("check_drug_interactions"),
            {"drug_names": ["lisinopril", "lisinopril"]},
            quality("success_rich"),
            NOTHING_CITED,
        ]
    )
    _, result = await run(make_agent(llm), "What are the contraindications of lisinopril?")
    assert tools.calls_to("check_drug_interactions") == []
    assert [args for args, _ in tools.calls_to("check_drug_safety")] == [
        {"drug_name": "lisinopril"}
    ]
    corrected = [s.detail for s in result.reasoning_timeline if s.title == "Corrected the request"]
    assert any("its label answers it, not the Drug Interaction Check" in d for d in corrected)


async def test_a_one_drug_interaction_question_is_not_sent_to_the_label(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_interactions"),
            select("check_drug_interactions"),
            {"drug_names": ["lisinopril", "lisinopril"]},
        ]
    )
    _, result = await run(make_agent(llm), "What interactions does lisinopril have?")
    assert tools.calls_to("check_drug_safety") == [] and result.clarification_requested


async def test_a_misspelt_second_drug_is_offered_back_not_traded_for_a_label(
    make_agent, tools
) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_interactions"),
            select("check_drug_interactions"),
            {"drug_names": ["glipizidee", "metformin"]},
        ]
    )
    _, result = await run(make_agent(llm), "Does glipizidee interact with metformin?")
    assert tools.calls_to("check_drug_safety") == [] and result.clarification_requested
    assert "Did you mean glipizide" in result.final_response


@pytest.mark.parametrize(
    ("query", "proposed", "checked"),
    [
        (
            "Check interactions between warfarin, aspirin, and ibuprofen",
            ["check_drug_interactions"] * 3,
            ["warfarin", "aspirin", "ibuprofen"],
        ),
        ("Any interaction between sertraline and tramadol?", ["sertraline"] * 2, None),
        ("Is clopidogrel OK with omeprazole?", ["antiplatelets", "PPIs"], None),
    ],
)
def test_an_interaction_list_missing_the_messages_drugs_checks_the_messages_drugs(
    query: str, proposed: list[str], checked: list[str] | None
) -> None:
    verdict, parsed = validate_call(
        REGISTRY["check_drug_interactions"],
        {"drug_names": proposed},
        evidence=Evidence.of({"user_query": query}),
        has_image=False,
    )
    named = [d.lower() for d in drug_dictionary().find(query)]
    assert verdict.ok and [d.lower() for d in parsed.drug_names] == (checked or named)
    assert verdict.restated


def test_an_interaction_list_holding_two_of_the_messages_drugs_is_kept() -> None:
    query = "Is ibuprofen OK with warfarin? Also, what dose of metformin for CKD 3?"
    verdict, parsed = validate_call(
        REGISTRY["check_drug_interactions"],
        {"drug_names": ["ibuprofen", "warfarin"]},
        evidence=Evidence.of({"user_query": query}),
        has_image=False,
    )
    assert verdict.ok and parsed.drug_names == ["ibuprofen", "warfarin"]
    assert not verdict.restated

"""Requests about a patient, a drug or an image nobody gave: the agent asks, never guesses.

Asked for a lab value of "the patient" with none named or selected, a small model searches
for a patient called ``patient_name``: code asks instead.
Each request below comes with the guess a small model makes (a placeholder, an invented
drug or ID); either the reference check stops the turn before any model call, or the
argument grounding refuses the guess. In all of them the clinician is asked and no tool runs.
"""

from __future__ import annotations

from typing import Any

import pytest

from docgemma.agent.references import (
    Context,
    asks_if_patient_may_take,
    asks_to_see_record,
    asks_what_record_holds,
    needs_record,
    only_names_a_patient,
    only_to_see_record,
    patient_to_find,
    unresolved_references,
)
from docgemma.agent.rules import ATTACH_IMAGE, WHICH_DRUG, WHICH_PATIENT
from docgemma.events import ToolCalled
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.base import ToolOutcome

from .conftest import intent, run, select

ASK_ID = "I need a patient ID"
ORPHAN_REQUESTS: list[tuple[str, str, dict[str, Any], str]] = [
    # request, the tool and arguments a small model guesses, what the reply must ask for
    (
        "What is the latest potassium of the patient?",
        "search_patient",
        {"name": "patient_name"},
        WHICH_PATIENT,
    ),
    ("Check her allergies", "get_patient_chart", {"patient_id": "patient_id"}, WHICH_PATIENT),
    ("What are his current medications?", "search_patient", {"name": "John Doe"}, WHICH_PATIENT),
    ("Is this drug safe for him?", "check_drug_safety", {"drug_name": "aspirin"}, WHICH_PATIENT),
    ("What does the X-ray show?", "analyze_medical_image", {"query": "chest"}, ATTACH_IMAGE),
    ("Analyze this chest X-ray", "analyze_medical_image", {"query": "pneumonia"}, ATTACH_IMAGE),
    (
        "Prescribe amoxicillin 500 mg three times daily for her",
        "prescribe_medication",
        {
            "patient_id": "abc-123",
            "medication_name": "amoxicillin",
            "dosage": "500 mg",
            "frequency": "three times daily",
        },
        WHICH_PATIENT,
    ),
    (
        "Add a penicillin allergy to his record",
        "add_allergy",
        {"patient_id": "pat-001", "substance": "penicillin", "reaction": "rash"},
        WHICH_PATIENT,
    ),
    (
        "Write a progress note for the patient",
        "save_clinical_note",
        {"patient_id": "12345", "note_type": "progress", "note_text": "Stable."},
        WHICH_PATIENT,
    ),
    ("Show me the patient's latest labs", "search_patient", {"name": "patient"}, WHICH_PATIENT),
    ("What was her last HbA1c?", "get_patient_chart", {"patient_id": "p-1"}, WHICH_PATIENT),
    ("How old is he?", "search_patient", {"name": "he"}, WHICH_PATIENT),
    (
        "Review her chart and summarise it",
        "get_patient_chart",
        {"patient_id": "her"},
        WHICH_PATIENT,
    ),
    (
        "What is the creatinine trend for this patient?",
        "search_patient",
        {"name": "this patient"},
        WHICH_PATIENT,
    ),
    ("Start her on the usual dose", "search_patient", {"name": "Jane Smith"}, WHICH_PATIENT),
    (
        "What are the side effects of this medication?",
        "check_drug_safety",
        {"drug_name": "ibuprofen"},
        WHICH_DRUG,
    ),
    (
        "Check the boxed warning for that drug",
        "check_drug_safety",
        {"drug_name": "drug_name"},
        WHICH_DRUG,
    ),
    (
        "Any warnings for the new medication?",
        "check_drug_safety",
        {"drug_name": "lisinopril"},
        WHICH_DRUG,
    ),
    (
        "Describe the findings on this CT scan",
        "analyze_medical_image",
        {"query": "findings"},
        ATTACH_IMAGE,
    ),
    (
        "Check interactions between this drug and warfarin",
        "check_drug_interactions",
        {"drug_names": ["metformin", "warfarin"]},
        WHICH_DRUG,
    ),
    (
        "Is there a fracture on the X-ray?",
        "analyze_medical_image",
        {"query": "fracture"},
        ATTACH_IMAGE,
    ),
    ("Look up the patient", "search_patient", {"name": "the patient"}, WHICH_PATIENT),
    ("Pull up the chart", "get_patient_chart", {"patient_id": "12345"}, WHICH_PATIENT),
    ("Show me the chart.", "get_patient_chart", {"patient_id": "12345"}, WHICH_PATIENT),  # eval
    ("Check FDA warnings", "check_drug_safety", {"drug_name": "drug_name"}, WHICH_DRUG),
    ("Search for the patient by name", "search_patient", {"name": "patient name"}, WHICH_PATIENT),
    # not recognised by the wording: the guessed argument itself is refused
    ("What is the potassium level?", "search_patient", {"name": "patient_name"}, WHICH_PATIENT),
    ("Pull up the latest labs", "get_patient_chart", {"patient_id": "12345"}, ASK_ID),
    (
        "Any interactions with warfarin?",
        "check_drug_interactions",
        {"drug_names": ["metformin", "warfarin"]},
        WHICH_DRUG,
    ),
]
CAUGHT_BY_WORDING = [r for r in ORPHAN_REQUESTS if unresolved_references(r[0], Context())]
REAL_MODEL_SUBSET = CAUGHT_BY_WORDING[::3]


@pytest.mark.parametrize(("request_text", "tool", "args", "question"), ORPHAN_REQUESTS)
async def test_the_agent_asks_and_calls_no_tool(
    make_agent, tools, request_text: str, tool: str, args: dict[str, Any], question: str
) -> None:
    llm = ScriptedBackend([intent(tool=tool), select(tool), args, "A guessed answer."])
    events, result = await run(make_agent(llm), request_text)
    assert result.clarification_requested and question in result.final_response
    assert tools.calls == [] and not any(isinstance(e, ToolCalled) for e in events)
    assert "guessed" not in result.final_response


def test_the_sample_is_large_and_mostly_caught_before_any_model_call() -> None:
    assert len(ORPHAN_REQUESTS) >= 20
    assert len(CAUGHT_BY_WORDING) >= 20
    assert len(ORPHAN_REQUESTS) - len(CAUGHT_BY_WORDING) == 4  # these reach argument grounding


@pytest.mark.parametrize(
    ("query", "context"),
    [
        ("Check amoxicillin info for my patient", Context()),  # a drug question, not a patient's
        ("Find patient Maria Garcia and check her chart", Context()),
        ("Find patient John Smith and check his meds", Context()),
        ("Write a note for patient abc-123", Context()),
        ("Check her allergies", Context(patient_selected=True)),
        ("What about his potassium?", Context(earlier_messages=["Find patient James Wilson"])),
        ("What does the X-ray show?", Context(image_available=True)),
        ("Is this drug safe in pregnancy?", Context(earlier_messages=["Tell me about lisinopril"])),
        ("What is the first-line treatment for type 2 diabetes?", Context()),
        ("What are the symptoms of pneumonia?", Context()),
        ("Explain metformin's mechanism", Context()),
        ("Should I order a chest X-ray for suspected pneumonia?", Context()),
        ("What is a normal potassium level?", Context()),
        ("When is a chest X-ray indicated in asthma?", Context()),
        ("She is also on the pill. What next?", Context()),  # the oral contraceptive
        ("What is a boxed warning?", Context()),
        ("Check FDA warnings for dofetilide", Context()),
        ("Check interactions between warfarin and aspirin", Context()),
        ("Check the interactions of it", Context(earlier_messages=["Tell me about warfarin"])),
        ("Look up naproxen information, my patient asked about it", Context()),
        ("Find Omar Haddad and review his medications", Context()),
        ("Which trials are testing new drugs for sickle cell disease?", Context()),
        ("Show the medication list for patient qrs-258", Context()),
        ("Save a note for patient tuv-369 that the CT was reviewed", Context()),
        ("Check safety alerts for Zorblatinib", Context()),  # named, if not in the dictionary
        # the message describes its own patient: "his" and "her" are that patient
        ("A 52-year-old man has crushing chest pain; what is his differential?", Context()),
        ("34F, 8 weeks pregnant, asks whether her sertraline dose is safe", Context()),
        ("An elderly woman on apixaban fell; what are her risks?", Context()),
        ("My 4 yo has a fever of 39 C; what dose of paracetamol for him?", Context()),
        # results the case itself reports are part of it, not a record or an image to fetch
        (
            "FBC on a 30F with easy bruising: the lab reports platelets of 9 and fragments "
            "on the film. Next steps for her?",
            Context(),
        ),
        (
            "70M, CXR: left lower lobe consolidation, labs show CRP 210. What does he need?",
            Context(),
        ),
        ("58F, ECG shows new LBBB and she is sweaty. Differential?", Context()),
        # a study to order, not an image at hand
        ("Twisted her ankle yesterday and can walk four steps. Does she need an X-ray?", Context()),
        ("Should we get a CT head after his fall on apixaban?", Context()),
    ],
)
def test_requests_whose_references_are_given_go_ahead(query: str, context: Context) -> None:
    assert unresolved_references(query, context) is None


@pytest.mark.parametrize(
    "query",
    [
        "A 60-year-old man was admitted last night; pull up his chart",
        "A 28-year-old woman with asthma: check her allergies",
        "45M on warfarin, what was his latest INR?",
    ],
)
def test_a_described_patient_whose_record_is_asked_for_is_still_asked_for(query: str) -> None:
    assert unresolved_references(query, Context()) == WHICH_PATIENT
    assert needs_record(query, Context())


@pytest.mark.parametrize(
    "query",
    ["67F with palpitations, here is her ECG", "A 40-year-old man: see the attached X-ray"],
)
def test_a_described_patient_whose_image_is_handed_over_still_needs_the_image(query: str) -> None:
    assert unresolved_references(query, Context()) == ATTACH_IMAGE


def test_both_questions_are_asked_when_patient_and_drug_are_missing() -> None:
    assert unresolved_references("Is this drug safe for him?", Context()) == (
        f"{WHICH_PATIENT} {WHICH_DRUG}"
    )


async def test_once_the_next_turn_names_the_patient_the_agent_goes_ahead(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="search_patient"),
            select("search_patient"),
            {"name": "Maria Garcia"},
            {"quality": "success_rich", "brief_summary": "found"},
            {"statements": []},
        ]
    )
    agent = make_agent(llm)
    _, first = await run(agent, "Check her allergies")
    assert first.clarification_requested and llm.calls == []
    _, second = await run(agent, "Find patient Maria Garcia")
    assert [c[0] for c in tools.calls] == ["search_patient"] and not second.clarification_requested


@pytest.mark.real_model
@pytest.mark.parametrize(("request_text", "tool", "args", "question"), REAL_MODEL_SUBSET)
async def test_on_the_real_model_the_agent_asks(
    settings, tools, real_llm, request_text: str, tool: str, args: dict[str, Any], question: str
) -> None:
    from docgemma.agent.service import Agent

    agent = Agent.create(settings, real_llm, tools.registry(), classifiers={})
    events, result = await run(agent, request_text)
    assert result.clarification_requested and question in result.final_response
    assert tools.calls == [] and not any(isinstance(e, ToolCalled) for e in events)


@pytest.mark.parametrize(
    ("query", "context", "needed"),
    [
        ("What are her allergies?", Context(), True),
        ("Show me the chart of abc-123", Context(), True),
        ("Which medications is patient dnguyen-005 taking?", Context(), True),
        ("What is her current INR?", Context(), True),  # was labelled unverified knowledge
        ("What are her allergies?", Context(patient_selected=True), False),  # summary loaded
        ("What is a normal INR range?", Context(), False),
        ("What is the first-line treatment for type 2 diabetes?", Context(), False),
        ("What are the usual doses of metformin?", Context(), False),
        ("What are the symptoms of pneumonia?", Context(), False),
        (
            "A 70-year-old man with a creatinine of 2.1: what is his kidney function?",
            Context(),
            False,
        ),
    ],
)
def test_a_question_about_a_patients_record_needs_the_record(
    query: str, context: Context, needed: bool
) -> None:
    assert needs_record(query, context) is needed


async def test_a_record_question_the_classifier_calls_direct_goes_to_the_record(
    make_agent, tools
) -> None:
    """Seen in the app: "Show me the chart of abc-123" was answered from memory, and the
    next "What are her allergies?" with "The patient has no known allergies."."""
    llm = ScriptedBackend(
        [
            intent("DIRECT"),
            select("get_patient_chart"),
            {"patient_id": "abc-123"},
            {"quality": "success_rich", "brief_summary": "chart"},
        ]
    )
    events, result = await run(make_agent(llm), "Show me the chart of abc-123")
    assert [e.tool for e in events if isinstance(e, ToolCalled)] == ["get_patient_chart"]
    assert result.active_patient_id == "abc-123"


@pytest.mark.parametrize(
    ("query", "only"),
    [
        ("Show me the chart of abc-123", True),
        ("Pull up the record of patient lchen-002.", True),
        ("Find patient John Smith and show me his chart.", True),
        ("Can you show me her chart?", True),
        ("Show me the chart of abc-123 and tell me if her potassium is high", False),
        ("Find patient Linda Chen, review her chart, and check her potassium.", False),
        ("What does the chart show?", False),
        ("Show me the guidelines for hypertension", False),
    ],
)
def test_a_request_only_to_see_the_record_is_told_from_a_question_about_it(
    query: str, only: bool
) -> None:
    assert only_to_see_record(query) is only


@pytest.mark.parametrize(
    ("query", "holds"),
    [
        ("What is she allergic to?", True),
        ("His latest eGFR?", True),
        ("And her potassium?", True),
        ("Which blood pressure drugs is she on?", True),
        ("What antiarrhythmic is he on?", True),  # a kind of drug, no word of the record
        ("Which painkillers are they taking?", True),
        ("What beta blocker is she on?", True),
        ("What ward is he on?", False),  # no kind of drug
        ("What oxygen target is he on?", False),
        ("Which team is she on?", False),
        ("58M with AF: what anticoagulant is he on?", False),  # a case, not the record
        ("Is that potassium a problem with her current meds?", False),
        ("Her potassium is 6.1: how should I treat it?", False),
        ("Should I stop her lisinopril?", False),
        ("What is the normal range of potassium?", False),
    ],
)
def test_a_question_only_about_what_the_record_holds_is_told_apart(query: str, holds: bool) -> None:
    assert asks_what_record_holds(query) is holds


async def test_with_the_record_loaded_a_question_about_it_is_answered_from_it_without_a_tool(
    make_agent, tools
) -> None:
    """Even when the model, led by earlier turns on other tools, asks for a tool."""

    async def summary(pid: str) -> str | None:
        return "Patient: Grace Kim (ID gk-8)\nAllergies: sulfamethoxazole (Stevens-Johnson)"

    llm = ScriptedBackend([intent("TOOL_NEEDED", "her allergies")])
    events, result = await run(
        make_agent(llm, patient_summary=summary), "What is she allergic to?", patient_id="gk-8"
    )
    assert not [e for e in events if isinstance(e, ToolCalled)]
    # the record's own line, by code: a model had answered with the vitals
    assert result.final_response == "Allergies: sulfamethoxazole (Stevens-Johnson) [1]"
    assert result.model_calls == 1 and result.confidence_level == "high"
    assert result.sources_used[0].title == "EHR summary of the active patient (gk-8)"
    understood = next(s for s in result.reasoning_timeline if s.title == "Understood the request")
    assert "the loaded record of the active patient answers it" in understood.detail


async def test_which_drug_of_a_kind_the_patient_takes_is_read_off_the_medication_list(
    make_agent, tools
) -> None:
    """The model sends it to the label of a drug it guessed; the record's list answers."""

    async def summary(pid: str) -> str | None:
        return (
            "Patient: James Wilson (ID jw-72)\n"
            "Active medications: dofetilide 500 mcg twice daily; ramipril 5 mg once daily"
        )

    llm = ScriptedBackend([intent("TOOL_NEEDED", "his antiarrhythmic", tool="check_drug_safety")])
    events, result = await run(
        make_agent(llm, patient_summary=summary),
        "What antiarrhythmic is he on?",
        patient_id="jw-72",
    )
    assert not [e for e in events if isinstance(e, ToolCalled)]
    assert result.final_response.startswith("Active medications: dofetilide 500 mcg twice daily")
    assert result.sources_used[0].title == "EHR summary of the active patient (jw-72)"


@pytest.mark.parametrize(
    ("query", "calls_up"),
    [
        ("Patient gkim-008 please.", True),
        ("pt gkim008 chart pls", True),  # the id without its hyphen
        ("Next patient: Grace Kim, gkim-008.", True),
        ("abc-123", True),
        ("What is the INR of abc-123?", False),
        ("Lisinopril for abc-123?", False),
        ("Prescribe metformin for abc-123", False),
        ("Next patient please.", False),
        ("Summarise the chart of patient abc-123", False),  # a request, not a name
    ],
)
def test_a_message_that_only_gives_a_patients_id_calls_the_patient_up(
    query: str, calls_up: bool
) -> None:
    assert only_names_a_patient(query) is calls_up


async def test_a_patient_called_up_by_id_gets_their_chart_whatever_the_model_says(
    make_agent, tools
) -> None:
    tools.queue(
        "get_patient_chart",
        ToolOutcome(data={"patient_id": "gkim-008"}, formatted="Patient: Grace Kim (ID gkim-008)"),
    )
    llm = ScriptedBackend(
        [
            intent("DIRECT"),
            select("search_knowledge_base"),
            {"patient_id": "gkim-008"},
            {"quality": "success_rich", "brief_summary": "chart"},
        ]
    )
    events, result = await run(make_agent(llm), "Next patient: Grace Kim, gkim-008.")
    assert [e.tool for e in events if isinstance(e, ToolCalled)] == ["get_patient_chart"]
    assert result.final_response.startswith("Patient: Grace Kim (ID gkim-008)")


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("Look up James Wilson.", "James Wilson"),
        ("Can you find patient Margaret Chen in the system?", "Margaret Chen"),
        ("find kwame asante", "kwame asante"),
        ("Look up Grace Parkinson", "Grace Parkinson"),  # a surname that also names a disease
        ("Search for Cushing syndrome", None),  # a condition, not a person
        ("Look up Addison disease", None),
        ("Look up James Wilson's INR", None),  # asks something about him
        ("Find Kwame Asante and prescribe amoxicillin", None),
        ("Find patient abc-123", None),  # an id: the record is read, nobody is searched
        ("search pubmed for statins", None),
    ],
)
def test_a_message_only_asking_to_find_a_patient_gives_the_name(
    query: str, name: str | None
) -> None:
    found = patient_to_find(query)
    assert (found.rstrip(".") if found else None) == name


@pytest.mark.parametrize(
    ("query", "blank"),
    [
        ("Does ____ interact with warfarin?", "“____”"),
        ("What is the renal dose of ___?", "“___”"),
        ("Start [MEDICATION] for [PATIENT NAME] today", "“[MEDICATION]”"),
        ("Start <drug> at <dose>", "“<drug>”"),
        ("What is the renal dose of gabapentin?", None),
        ("Check her meds [see chart] for interactions", None),  # a remark, not a blank
        ("snake_case_name in a log", None),
    ],
)
def test_a_blank_left_in_a_message_is_asked_about_before_anything_is_checked(
    query: str, blank: str | None
) -> None:
    question = unresolved_references(query, Context())
    if blank is None:
        assert question is None or "blank" not in question
    else:
        assert question is not None and blank in question and "Nothing has been checked" in question


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("Pull their current med list and check for interactions.", True),
        ("Review her chart, then check interactions with aspirin", True),
        ("Show me his allergies", True),
        ("Does any of her medication interact with ciprofloxacin?", False),
        ("Check her medication for interactions with aspirin", False),
        ("Show me the evidence on statins in the elderly", False),
    ],
)
def test_a_request_to_be_shown_the_record_among_other_things(query: str, shown: bool) -> None:
    assert asks_to_see_record(query) is shown


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("Can she take ibuprofen for her knee pain?", True),
        ("could the patient have codeine?", True),
        ("Is naproxen safe for him?", True),
        ("Is it ok with her to start at 5 mg?", False),  # about consent, not the drug
        ("What are the side effects of ibuprofen?", False),
        ("Is naproxen safe in pregnancy?", False),  # no patient
    ],
)
def test_a_question_whether_the_patient_may_take_a_drug(query: str, asks: bool) -> None:
    assert asks_if_patient_may_take(query) is asks

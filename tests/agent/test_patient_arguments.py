"""A patient argument is a patient: a name is a name, an id an id, a follow-up about a
patient nobody found is asked about, and work on several patients asks which one first."""

from __future__ import annotations

import pytest

from docgemma.agent.entities import patient_ids
from docgemma.agent.references import WHICH_OF_SEVERAL, Context, several_patients
from docgemma.agent.rules import WHICH_PATIENT
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.base import ToolErrorType, ToolOutcome

from .conftest import NOTHING_CITED, cited, intent, quality, run, select


async def test_work_on_several_patients_asks_which_one_before_any_model_call(
    make_agent, tools
) -> None:
    llm = ScriptedBackend([])
    _, result = await run(
        make_agent(llm), "On call this weekend, I have to go through several patients' charts."
    )
    assert result.final_response == WHICH_OF_SEVERAL and result.model_calls == 0
    assert tools.calls == []


async def test_a_sentence_is_never_searched_for_as_a_name(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [
            intent(tool="search_patient"),
            select("search_patient"),
            {"name": "the new admission from bay four"},
        ]
    )
    _, result = await run(make_agent(llm), "Look up the new admission from bay four")
    assert tools.calls_to("search_patient") == [] and result.final_response == WHICH_PATIENT


async def test_a_title_is_left_out_of_the_name_searched(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [intent(tool="search_patient"), select("search_patient"), {"name": "Mrs Okafor"}]
    )
    await run(make_agent(llm), "Is Mrs Okafor in the system?")
    ((args, _),) = tools.calls_to("search_patient")
    assert args == {"name": "Okafor"}


async def test_a_follow_up_about_a_patient_nobody_found_says_so(make_agent, tools) -> None:
    tools.queue(
        "search_patient",
        ToolOutcome(error_type=ToolErrorType.NOT_FOUND, entity="Tomasz Wieczorek"),
    )
    llm = ScriptedBackend(
        [
            intent(tool="search_patient"),
            select("search_patient"),
            {"name": "Tomasz Wieczorek"},
            quality("error_fatal"),
        ]
    )
    agent = make_agent(llm)
    _, first = await run(agent, "Find Tomasz Wieczorek")
    assert "could not find a patient named 'Tomasz Wieczorek'" in first.final_response
    for follow_up in ("Her labs as well", "Chart"):
        _, result = await run(agent, follow_up)
        assert result.model_calls == 0 and len(tools.calls_to("search_patient")) == 1
        assert "'Tomasz Wieczorek'" in result.final_response
        assert "patient's ID" in result.final_response


CHART = (
    "Patient: Ana Duarte (ID 5521) — 71 y, female\n"
    "Active problems: hypertension; hyperlipidaemia\n"
    "Active medications: simvastatin 40 mg at bedtime; amlodipine 5 mg once daily\n"
    "Allergies: none recorded"
)


async def test_an_id_and_their_med_list_check_the_named_drug_against_the_chart(
    make_agent, tools
) -> None:
    tools.queue("get_patient_chart", ToolOutcome(data={"patient_id": "5521"}, formatted=CHART))
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_interactions"),
            select("check_drug_interactions"),  # code reads the chart first
            {"patient_id": "5521"},
            quality("success_rich"),
            select("check_drug_interactions"),
            {"drug_names": ["clarithromycin", "pneumonia"]},  # not the chart's drugs
            quality("success_rich"),
            cited("She takes simvastatin 40 mg at bedtime.", "simvastatin 40 mg at bedtime"),
        ]
    )
    message = (
        "Patient 5521 is being started on clarithromycin for pneumonia. Pull their current "
        "med list and check for interactions."
    )
    _, result = await run(make_agent(llm), message)
    ((chart, _),) = tools.calls_to("get_patient_chart")
    ((checked, _),) = tools.calls_to("check_drug_interactions")
    assert chart == {"patient_id": "5521"}
    assert checked["drug_names"] == ["clarithromycin", "simvastatin", "amlodipine"]
    assert result.final_response.startswith("She takes simvastatin 40 mg at bedtime.")


KNEE = "Can she take ibuprofen for her knee pain?"


@pytest.mark.parametrize(
    ("message", "model_list", "checked"),
    [
        (KNEE, ["ibuprofen", "amlodipine"], ["ibuprofen", "amlodipine", "simvastatin"]),
        (KNEE, ["ibuprofen", "simvastatin"], ["ibuprofen", "simvastatin", "amlodipine"]),
        # whether she may take them: against her whole list too
        (
            "Can she take ibuprofen with paracetamol?",
            ["ibuprofen", "paracetamol"],
            ["ibuprofen", "paracetamol", "simvastatin", "amlodipine"],
        ),
        ("Interactions of ibuprofen and paracetamol?", ["ibuprofen", "paracetamol"], None),
        ("Is amlodipine ok with ibuprofen for her?", ["amlodipine", "ibuprofen"], None),
    ],
)
async def test_a_check_against_part_of_her_medications_covers_all_of_them(
    make_agent, tools, message: str, model_list: list[str], checked: list[str] | None
) -> None:
    """For "can she take ibuprofen?" a model checked it against one of her two drugs."""

    async def summary(pid: str) -> str | None:
        return CHART

    llm = ScriptedBackend(
        [
            intent(tool="check_drug_interactions"),
            select("check_drug_interactions"),
            {"drug_names": model_list},
            quality("success_rich"),
            cited("Ibuprofen with warfarin raises bleeding risk.", "warfarin + aspirin"),
        ]
    )
    agent = make_agent(llm, patient_summary=summary)
    await run(agent, message, patient_id="5521")
    ((args, _),) = tools.calls_to("check_drug_interactions")
    assert args["drug_names"] == (checked or model_list)


@pytest.mark.parametrize(
    ("message", "checked"),
    [
        (KNEE, ["ibuprofen", "simvastatin", "amlodipine"]),
        ("Is naproxen safe for her?", ["naproxen", "amlodipine", "simvastatin"]),
        ("What are the side effects of ibuprofen?", None),  # about the drug, not her
        ("Can she take amlodipine at night?", None),  # already on her list
    ],
)
async def test_whether_she_may_take_a_drug_is_checked_against_her_medications(
    make_agent, tools, message: str, checked: list[str] | None
) -> None:
    """The model proposed the drug's label; code checks the drug against her list first."""

    async def summary(pid: str) -> str | None:
        return CHART

    (drug,) = [d for d in ("ibuprofen", "naproxen", "amlodipine") if d in message]
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"drug_names": checked[:2]} if checked else {"drug_name": drug},
            quality("success_rich"),
            select("none"),
            NOTHING_CITED,
        ]
    )
    await run(make_agent(llm, patient_summary=summary), message, patient_id="5521")
    calls = tools.calls_to("check_drug_interactions")
    assert [args["drug_names"] for args, _ in calls] == ([checked] if checked else [])
    assert bool(tools.calls_to("check_drug_safety")) is (checked is None)


@pytest.mark.parametrize(
    ("message", "asks"),
    [
        ("Need to get through a few charts before handover", True),
        ("Can you help me review several patients on the ward?", True),
        ("How should metformin be dosed in patients with an eGFR of 35?", False),
        ("Which labs should be checked in patients starting lithium?", False),
        ("Review the charts of a few patients, starting with abc-123", False),  # one is named
    ],
)
def test_only_record_work_on_unnamed_patients_asks_which_one(message: str, asks: bool) -> None:
    assert several_patients(message, Context()) is asks


@pytest.mark.parametrize(
    ("message", "number"),
    [("Patient 5521 started on clarithromycin", ["5521"]), ("pt #40917 chart", ["40917"]),
     ("A 72 year old patient 80 kg", []), ("metformin 1000 mg for 2 weeks", [])],
)  # fmt: skip
def test_a_number_is_an_id_only_where_the_message_says_so(message: str, number: list) -> None:
    assert patient_ids(message) == number


VIGNETTE = (
    "61M, 2 days of melaena after ibuprofen for his back, HR 112, BP 96/60. "
    "Gastritis, OK to go home on omeprazole?"
)


@pytest.mark.parametrize(
    ("message", "searched"),
    [
        (VIGNETTE, True),  # a case and what to do with it: the conditions, not a label
        ("61M on ibuprofen for his back pain: what is the maximum dose?", False),  # the drug
        ("What are the side effects of omeprazole?", False),  # no case described
    ],
)
async def test_a_case_presentation_goes_to_the_condition_pages_not_to_a_drug_label(
    make_agent, tools, message: str, searched: bool
) -> None:
    """The model proposed the label of a drug in the story; code searches the case instead."""
    drug = "ibuprofen" if "ibuprofen" in message else "omeprazole"
    llm = ScriptedBackend(
        [
            intent(tool="check_drug_safety"),
            select("check_drug_safety"),
            {"query": "upper GI bleeding"} if searched else {"drug_name": drug},
            quality("success_rich"),
            select("none"),
            NOTHING_CITED,
        ]
    )
    _, result = await run(make_agent(llm), message)
    assert bool(tools.calls_to("search_knowledge_base")) is searched, result.final_response
    assert bool(tools.calls_to("check_drug_safety")) is not searched


async def test_a_case_that_reports_its_studies_is_not_sent_to_the_image_tool(
    make_agent, tools
) -> None:
    """With no image attached, "blasts on the film" is a result, not an image to read."""
    message = "FBC on a 24M, bleeding gums: lots of blasts on the film, plt 12. Clinic next week?"
    llm = ScriptedBackend(
        [
            intent(tool="analyze_medical_image"),
            select("search_knowledge_base"),  # the image tool is not offered
            {"query": "acute leukaemia"},
            quality("success_rich"),
            select("none"),
            NOTHING_CITED,
        ]
    )
    _, result = await run(make_agent(llm), message)
    assert tools.calls_to("analyze_medical_image") == []
    assert "attach" not in result.final_response.lower()
    offered = llm.calls[1].schema.model_json_schema()
    assert "analyze_medical_image" not in str(offered)


@pytest.mark.parametrize(
    ("follow_up", "searched"),
    [
        ("She is also on the pill. What next?", True),  # adds to the case, asks about it
        ("What's the differential now that she says she is on sertraline?", True),
        ("She is also on sertraline. Any interaction with tramadol?", False),  # a label's
        ("Any concerns with giving her sertraline and tramadol?", False),  # a drug to give
    ],
)
async def test_a_follow_up_adding_to_a_case_goes_to_the_condition_pages_not_a_drug_check(
    make_agent, tools, follow_up: str, searched: bool
) -> None:
    """The model proposed an interaction check for a follow-up about the case presented
    before; code searches the case's conditions instead, unless a label is asked for."""
    case = "26F, sudden pleuritic chest pain and breathlessness since this morning, HR 112."
    llm = ScriptedBackend(
        [
            intent("DIRECT"),
            intent(tool="check_drug_interactions"),
            select("check_drug_interactions"),
            {"query": "pulmonary embolism"}
            if searched
            else {"drug_names": ["sertraline", "tramadol"]},
            quality("success_rich"),
            select("none"),
            NOTHING_CITED,
        ]
    )
    agent = make_agent(llm)
    await run(agent, case)
    _, result = await run(agent, follow_up)
    assert bool(tools.calls_to("search_knowledge_base")) is searched, result.final_response
    assert bool(tools.calls_to("check_drug_interactions")) is not searched

"""Can't-miss diagnoses in the clinician mode: recognised by code, in the question or in
the case it refers back to, and opening the answer whatever the model wrote."""

from __future__ import annotations

import pytest

from docgemma.agent.cant_miss import recognise
from docgemma.agent.cant_miss_opening import HEADING, cant_miss_block, open_with_cant_miss
from docgemma.llm.scripted import ScriptedBackend
from docgemma.red_flags.table import BY_ID, SYMPTOM_ROWS

from .conftest import intent, run

HEADACHE_CASE = "49F, abrupt severe headache while gardening, the worst she has ever had. Ddx?"


def test_the_question_alone_fires_its_row() -> None:
    found = recognise(HEADACHE_CASE)[0]  # rows it resembles come after
    assert "similarity" not in found  # fired by its words
    assert found["rule_id"] == "thunderclap_headache"
    assert found["exclude"][0] == "subarachnoid haemorrhage"


def test_a_presentation_fires_its_row_and_a_question_naming_the_diagnosis_does_not() -> None:
    (found,) = recognise("Known cirrhosis with ascites, now febrile with abdominal pain. Ddx?")
    assert found["rule_id"] == "cirrhosis_decompensation"
    assert found["exclude"][0] == "spontaneous bacterial peritonitis or other sepsis"
    assert recognise("What is the treatment of spontaneous bacterial peritonitis?") == []
    assert recognise("What blood monitoring does clozapine need?") == []


def test_a_question_that_refers_back_reads_the_case_described_before() -> None:
    earlier = ["81M, day 3 after a total hip replacement."]
    question = "He is now short of breath. What's the differential?"
    assert recognise(question) == []
    assert [f["rule_id"] for f in recognise(question, earlier)] == ["post_op_deterioration"]


def test_a_new_topic_does_not_reach_back() -> None:
    earlier = ["Sudden tearing chest pain radiating to the back in a 60-year-old"]
    assert recognise("What is the usual dose of amoxicillin for otitis media?", earlier) == []


def test_a_question_presenting_a_new_patient_does_not_reach_back() -> None:
    earlier = ["67M with type 1 diabetes, vomiting since this morning, breathing deeply."]
    question = "19M, right iliac fossa pain since last night, vomited twice. What next?"
    assert "diabetic_ketoacidosis" in [f["rule_id"] for f in recognise("What next?", earlier)]
    assert "diabetic_ketoacidosis" not in [f["rule_id"] for f in recognise(question, earlier)]


def test_a_follow_up_that_only_adds_who_the_patient_is_still_reads_the_case() -> None:
    earlier = ["Fever, neck stiffness and a non-blanching rash."]
    found = recognise("She is a 19F student, what next?", earlier)
    assert "meningitis_signs" in [f["rule_id"] for f in found]


def test_a_negation_in_an_earlier_message_stays_a_negation() -> None:
    earlier = ["Fever for two days, no neck stiffness, no photophobia."]
    assert recognise("What's the differential?", earlier) == []


def test_the_block_opens_the_answer_once() -> None:
    found = recognise(HEADACHE_CASE)
    answer = open_with_cant_miss("Migraine is likely.", found)
    assert answer.startswith(cant_miss_block(found)) and answer.endswith("Migraine is likely.")
    assert open_with_cant_miss(answer, found) == answer
    assert open_with_cant_miss("Migraine is likely.", []) == "Migraine is likely."


async def test_the_answer_opens_with_the_condition_the_model_left_out(make_agent, tools) -> None:
    llm = ScriptedBackend(
        [intent("DIRECT", "headache differential"), "Likely migraine, tension or cluster."]
    )
    _, result = await run(make_agent(llm), HEADACHE_CASE, show_unverified=True)
    opening = result.final_response.split("\n\n")[0]
    assert "subarachnoid haemorrhage" in opening
    assert BY_ID["thunderclap_headache"].first in result.final_response
    assert result.final_response.index("subarachnoid") < result.final_response.index("migraine")
    step = next(
        e for e in result.reasoning_timeline if e.title == "Can't-miss diagnoses to exclude first"
    )
    assert "thunderclap_headache" in step.detail and "subarachnoid haemorrhage" in step.detail
    assert tools.calls == []


async def test_a_follow_up_question_gets_the_block_from_the_earlier_case(make_agent) -> None:
    llm = ScriptedBackend(
        [
            intent("DIRECT", "case"),
            "Noted.",
            intent("DIRECT", "differential"),
            "Consider atelectasis or pneumonia.",
        ]
    )
    agent = make_agent(llm)
    _, first = await run(
        agent, "72F, second day after a right hemicolectomy.", show_unverified=True
    )
    assert "Can't miss" not in first.final_response
    _, second = await run(
        agent, "BP 88/50 and breathless now — immediate differential?", show_unverified=True
    )
    assert second.final_response.startswith("**Can't miss")
    assert "pulmonary embolism" in second.final_response.split("\n\n")[0]
    assert "haemorrhage" in second.final_response and "sepsis" in second.final_response


async def test_a_negated_presentation_leaves_the_answer_alone(make_agent) -> None:
    llm = ScriptedBackend([intent("DIRECT", "follow-up"), "Every three months."])
    _, result = await run(
        make_agent(llm),
        "No chest pain, denies breathlessness; how often should blood pressure be rechecked?",
        show_unverified=True,
    )
    assert "Every three months." in result.final_response
    assert "Can't miss" not in result.final_response


def test_every_condition_is_on_the_first_line_before_any_step() -> None:
    """With two rows fired, the second row's conditions are not pushed down the answer by
    the first row's steps."""
    found = recognise("Sudden thunderclap headache, now neck stiffness and photophobia.")
    assert len(found) >= 2
    first_line, *steps = cant_miss_block(found).split("\n")
    for row in found:
        assert all(condition.split(" (")[0] in first_line for condition in row["exclude"])
    assert len(steps) == len(found) and all(s.startswith("**Do first** (") for s in steps)


def test_a_symptom_row_beside_a_cause_adds_its_conditions_but_not_its_steps() -> None:
    found = recognise("Ten minutes into a blood transfusion: rigors, BP 82/50.")
    ids = [f["rule_id"] for f in found]
    assert ids[0] == "transfusion_reaction" and "sepsis_signs" in ids
    first_line, *steps = cant_miss_block(found).split("\n")
    assert "sepsis or septic shock" in first_line
    assert [s for s in steps if "blood cultures, IV broad-spectrum" in s] == []
    assert len(steps) == len([i for i in ids[:3] if i not in SYMPTOM_ROWS])


def test_a_condition_two_rows_name_is_on_the_first_line_once() -> None:
    found = recognise("8 weeks pregnant with lower abdominal pain and PV bleeding")
    assert {"pregnancy_bleeding_or_severe_pain", "pregnancy_tummy_pain"} <= {
        f["rule_id"] for f in found
    }
    first_line = cant_miss_block(found).split("\n")[0]
    assert first_line.count("ectopic pregnancy") == 1, first_line


def test_an_alternative_another_row_names_alone_is_not_named_again() -> None:
    found = recognise("Sudden chest pain and breathlessness, HR 112")
    assert {"chest_pain_breathless", "acute_breathlessness"} <= {f["rule_id"] for f in found}
    first_line = cant_miss_block(found).split("\n")[0]
    assert first_line.count("acute coronary syndrome") == 1, first_line
    assert "acute heart failure" in first_line and "pulmonary embolism" in first_line


@pytest.mark.parametrize(
    ("exclude", "shown"),
    [
        (
            ["acute coronary syndrome", "acute coronary syndrome or acute heart failure"],
            "acute coronary syndrome, acute heart failure.",
        ),
        (
            [
                "aortic dissection",
                "acute coronary syndrome",
                "aortic dissection or acute coronary syndrome",
            ],
            "aortic dissection, acute coronary syndrome.",
        ),
        (
            ["haemorrhagic stroke", "ischaemic or haemorrhagic stroke"],
            "haemorrhagic stroke, ischaemic or haemorrhagic stroke.",
        ),
        (["sepsis", "sepsis or septic shock (toxin)"], "sepsis, sepsis or septic shock (toxin)."),
    ],
)
def test_the_opening_names_each_alternative_once_unless_it_would_change_its_meaning(
    exclude: list[str], shown: str
) -> None:
    row = {"rule_id": "r", "presentation": "P", "exclude": exclude, "first": "F", "evidence": []}
    assert cant_miss_block([row]).split("\n")[0] == f"{HEADING} {shown}"

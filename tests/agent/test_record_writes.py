"""A proposed record write carries the clinician's words, whatever the model made of them.

Scripted model, fake tools: the approval card (the pending request) is what is checked,
before anything is written, and what is written after the clinician approves.
"""

from __future__ import annotations

import pytest

from docgemma.agent.outcome import ApprovalDecision
from docgemma.llm.scripted import ScriptedBackend

from .conftest import intent, quality, run, select

PID = "rkhan-220"


def replies(tool: str, args: dict) -> list:
    return [intent(tool=tool), select(tool), args]


async def propose(make_agent, tool: str, message: str, args: dict):
    agent = make_agent(ScriptedBackend([*replies(tool, args), quality("success_rich")]))
    _, result = await run(agent, message)
    return agent, result


NOTE = (
    "Started apixaban 5 mg twice daily for paroxysmal AF after discussion of bleeding risk. "
    "CHA2DS2-VASc 3, HAS-BLED 1."
)


@pytest.mark.parametrize(
    "message",
    [
        f"Save a note for {PID}: {NOTE}",
        f"Add a progress note to the chart of {PID} - {NOTE}",
        f'Please record "{NOTE}" in the notes of {PID}',
        f"Document that {NOTE[0].lower()}{NOTE[1:]} for patient {PID}.",
    ],
    ids=["colon", "dash", "quoted", "document-that"],
)
async def test_a_note_split_wrongly_by_the_model_is_proposed_as_dictated(
    make_agent, tools, message
) -> None:
    split = {
        "patient_id": PID,
        "note_type": "progress",
        "note_text": "for paroxysmal AF after discussion of bleeding risk.",
    }
    agent, result = await propose(make_agent, "save_clinical_note", message, split)
    pending = result.pending_approval
    expected = NOTE if "that" not in message else f"{NOTE[0].lower()}{NOTE[1:]}"
    assert pending is not None and pending.args["note_text"] == expected
    assert pending.args["note_type"] == "progress"
    approved = await _approve(agent)
    ((written, _),) = tools.calls_to("save_clinical_note")
    assert written["note_text"] == expected
    assert "Corrected the request" in [s.title for s in approved.reasoning_timeline]


async def test_a_note_type_nobody_stated_is_the_default(make_agent, tools) -> None:
    """The schema holds the model to the vocabulary; which value is the clinician's call."""
    message = f"Save a note for {PID}: gliclazide stopped, sitagliptin started, HbA1c 58."
    wrong = {"patient_id": PID, "note_type": "procedure", "note_text": "to sitagliptin"}
    _, result = await propose(make_agent, "save_clinical_note", message, wrong)
    assert result.pending_approval.args == {
        "patient_id": PID,
        "note_type": "progress",
        "note_text": "gliclazide stopped, sitagliptin started, HbA1c 58.",
    }


async def test_a_note_nobody_dictated_is_asked_for_not_shown(make_agent, tools) -> None:
    invented = {"patient_id": PID, "note_type": "progress", "note_text": "Patient doing well."}
    _, result = await propose(make_agent, "save_clinical_note", f"Save a note for {PID}", invented)
    assert result.pending_approval is None and result.clarification_requested
    assert "What should the note say?" in result.final_response


@pytest.mark.parametrize(
    ("message", "proposal", "card"),
    [
        (
            f"Prescribe cefalexin 500 mg PO QID for 5 days for {PID}",
            {"dosage": "500 mg", "frequency": "once daily"},
            {"frequency": "four times daily", "route": "oral", "duration": "for 5 days"},
        ),
        (
            f"Start enoxaparin 40 mg subcut once a day for {PID}",
            {"dosage": "40 mg", "frequency": "once daily", "route": "oral"},
            {"frequency": "once daily", "route": "subcutaneous"},
        ),
        (
            f"{PID}: naproxen 500 mg twice a day, take it with food",
            {"dosage": "500 mg twice daily", "frequency": "twice daily", "notes": "with meals"},
            {"dosage": "500 mg", "frequency": "twice daily"},
        ),
    ],
    ids=["abbreviations-and-duration", "route", "notes-not-said"],
)
async def test_a_prescription_holds_the_stated_values(
    make_agent, tools, message, proposal, card
) -> None:
    args = {"patient_id": PID, "medication_name": message.split()[1], **proposal}
    if "naproxen" in message:
        args["medication_name"] = "naproxen"
    _, result = await propose(make_agent, "prescribe_medication", message, args)
    pending = result.pending_approval.args
    assert {k: pending.get(k) for k in card} == card
    assert "notes" not in pending  # words the clinician never said are not written


async def test_a_prescription_without_a_frequency_asks_for_it(make_agent, tools) -> None:
    args = {"patient_id": PID, "medication_name": "sertraline", "dosage": "50 mg"}
    _, result = await propose(
        make_agent,
        "prescribe_medication",
        f"Prescribe sertraline 50 mg for {PID}",
        {**args, "frequency": "once daily"},
    )
    assert result.pending_approval is None and "frequency" in result.final_response


@pytest.mark.parametrize(
    ("message", "proposal", "card"),
    [
        (
            f"Add an allergy for {PID}: trimethoprim, she came out in hives, moderate",
            {"substance": "trimethoprim", "reaction": "Hives", "severity": "mild"},
            {"reaction": "hives", "severity": "moderate"},
        ),
        (
            f"{PID} is allergic to enalapril, it makes him cough",
            {"substance": "enalapril", "reaction": "coughing", "severity": "severe"},
            {"reaction": "cough", "severity": None},
        ),
    ],
    ids=["stated-severity", "reaction-as-said"],
)
async def test_an_allergy_holds_the_clinicians_reaction(
    make_agent, tools, message, proposal, card
) -> None:
    _, result = await propose(make_agent, "add_allergy", message, {"patient_id": PID, **proposal})
    pending = result.pending_approval.args
    assert {k: pending.get(k) for k in card} == card


async def test_an_allergy_reaction_nobody_gave_is_asked_for(make_agent, tools) -> None:
    invented = {"patient_id": PID, "substance": "latex", "reaction": "urticaria"}
    _, result = await propose(
        make_agent, "add_allergy", f"Record a latex allergy for {PID}", invented
    )
    assert result.pending_approval is None
    assert "what reaction does it cause?" in result.final_response


async def _approve(agent):
    decision = ApprovalDecision(action="approve", approved_by="dr.x")
    items = [i async for i in agent.resume("t", decision)]
    return items[-1]


async def test_a_dictated_note_naming_a_lab_is_a_note_not_a_chart_question(
    make_agent, tools
) -> None:
    """The model answers "Save a note …: TSH requested" from the loaded chart (its TSH
    line); the message orders a note, so code proposes the note with the dictated words."""
    message = "Save a note: tired for two weeks, TSH requested."

    async def summary(pid: str) -> str | None:
        return f"Patient: Ann Lee (ID {PID})\nLatest labs: TSH 2.1 mIU/L (2025-05-29)"

    llm = ScriptedBackend(
        [
            intent("DIRECT"),
            select("get_patient_chart"),
            {"patient_id": PID, "note_type": "progress", "note_text": "TSH 2.1"},
            quality("success_rich"),
        ]
    )
    agent = make_agent(llm, patient_summary=summary)
    _, result = await run(agent, message, patient_id=PID)
    pending = result.pending_approval
    assert pending is not None and pending.tool == "save_clinical_note"
    assert pending.args["note_text"] == "tired for two weeks, TSH requested."
    assert "2.1" not in result.final_response
    assert tools.calls_to("save_clinical_note") == []  # nothing written before approval


async def test_an_ordered_prescription_is_proposed_whatever_other_write_the_model_picks(
    make_agent, tools
) -> None:
    """The model picks the note tool for an order to start a drug; the message orders a
    prescription, so code proposes the prescription, not a note holding the order."""
    llm = ScriptedBackend(
        [
            intent(tool="save_clinical_note"),
            select("save_clinical_note"),
            {
                "patient_id": PID,
                "medication_name": "atorvastatin",
                "dosage": "20 mg",
                "frequency": "at bedtime",
            },
        ]
    )
    _, result = await run(make_agent(llm), f"Start atorvastatin 20 mg once nightly for {PID}.")
    pending = result.pending_approval
    assert pending is not None and pending.tool == "prescribe_medication", result.final_response
    assert pending.args["medication_name"] == "atorvastatin" and pending.args["dosage"] == "20 mg"
    assert tools.calls_to("save_clinical_note") == []

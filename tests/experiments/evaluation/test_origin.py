"""Answer parts by origin: the model's text, and what code added to it or wrote instead."""

from __future__ import annotations

from docgemma.agent.answer.compose import UNVERIFIED_NOTE
from docgemma.agent.cant_miss_opening import open_with_cant_miss
from docgemma.events import Decision
from experiments.evaluation.origin import answer_parts, code_text, model_text, written_by_code


def test_notes_below_the_statements_are_code_text():
    answer = (
        "- Lactic acidosis [1]\n- Renal limits [1]\n\nNote: the trials registry did not answer."
    )
    parts = answer_parts(answer)
    assert [p.origin for p in parts] == ["model", "code"]
    assert model_text(parts).startswith("- Lactic acidosis")
    assert code_text(parts).startswith("Note: the trials")


def test_the_knowledge_label_is_code_text():
    parts = answer_parts(f"Naloxone reverses it.\n\n{UNVERIFIED_NOTE}")
    assert model_text(parts) == "Naloxone reverses it."
    assert code_text(parts) == UNVERIFIED_NOTE


def test_an_answer_written_by_code_has_no_model_text():
    stated = Decision(
        node="synthesize", label="", decision="answer", reason="no source answered; stated by code"
    )
    declined = Decision(
        node="synthesize", label="", decision="answer", reason="nothing answers; declined by code"
    )
    written = Decision(
        node="synthesize", label="", decision="answer", reason="written by the model"
    )
    assert written_by_code([stated]) and written_by_code([declined])
    assert not written_by_code([written])
    assert model_text(answer_parts("Anything.", by_code=True)) == ""


def test_a_turn_that_ended_before_synthesis_is_code_text():
    asked = Decision(node="input_assembly", label="", decision="ask_user", reason="which drug")
    assert written_by_code([asked]) and written_by_code([])


def test_the_cant_miss_block_an_answer_opens_with_is_code_text():
    row = {
        "rule_id": "thunderclap_headache",
        "presentation": "Thunderclap headache",
        "exclude": ["SAH"],
        "first": "CT head.",
        "evidence": [],
    }
    answer = open_with_cant_miss("- Migraine is common. [1]", [row])
    parts = answer_parts(answer)
    assert [p.origin for p in parts] == ["code", "model"]
    assert model_text(parts) == "- Migraine is common. [1]"

"""Pure pieces of the triage mode: input checks, patient text, schemas, severities, follow-ups."""

from __future__ import annotations

import pytest

from docgemma.kb import Severity as PageSeverity
from docgemma.llm.errors import StructuredOutputError
from docgemma.llm.schema import check_bounded, validated
from docgemma.llm.types import Generation
from docgemma.triage.demographics import AgeBand, Demographics
from docgemma.triage.follow_ups import follow_up_questions
from docgemma.triage.input_check import check_input, looks_english
from docgemma.triage.patient_text import DEFAULT_QUESTION, clean_reply, compose
from docgemma.triage.red_flags import check
from docgemma.triage.schemas import RouteDecision, as_prediction, prediction_schema
from docgemma.triage.severity import Severity


def test_severities_are_the_knowledge_bases_closed_set():
    assert [s.name for s in Severity] == [s.name for s in PageSeverity]
    assert [s.rank for s in Severity] == [0, 1, 2]


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("I have had a headache since yesterday", True),
        ("sore throat", True),
        ("J'ai mal à la tête depuis hier", False),
        ("Tengo dolor de cabeza y fiebre", False),
        ("Ich habe seit gestern Kopfschmerzen und Fieber", False),
        ("У меня болит голова", False),
        ("头痛发烧", False),
        ("paracetamol 500mg?", True),
    ],
)
def test_language_check(text, english):
    assert looks_english(text) is english


def test_input_check_truncates_and_flags():
    checked = check_input("x" * 50, max_chars=10)
    assert checked.text == "x" * 10 and "only the first 10" in checked.notices[0]
    assert check_input("  \n ", max_chars=10).empty


def test_clean_reply_drops_internals_and_tags():
    text = (
        "I'm sorry to hear that. The retrieved page scored 0.82. This may be a cold. "
        "<|im_start|>answer The model thinks so. Rest and drink fluids."
    )
    assert clean_reply(text) == "I'm sorry to hear that. This may be a cold. Rest and drink fluids."


def test_clean_reply_drops_echoed_prompt_scaffolding():
    echoed = (
        "Call 999. Key facts from the condition information: No single condition matched; "
        "give general advice. Urgency: A&E. Please stay calm."
    )
    assert clean_reply(echoed) == "Call 999. Please stay calm."


def test_compose_puts_red_flag_advice_first_and_ends_with_a_question():
    fired = check("crushing chest pain and short of breath")
    text = compose("This sounds worrying.", Severity.A_AND_E, fired)
    assert text.startswith("Call 999 now: chest pain")
    assert "This sounds worrying." in text and text.endswith(DEFAULT_QUESTION)
    kept = compose("Rest at home. Is it worse at night?", Severity.SELF_CARE, [])
    assert kept == f"Rest at home. {Severity.SELF_CARE.action} Is it worse at night?"
    assert compose("", None, []) == DEFAULT_QUESTION


def test_prediction_schema_admits_only_retrieved_ids():
    schema = prediction_schema(("flu", "common-cold"))
    check_bounded(schema)
    ok = validated(schema, Generation(text='{"condition": "flu", "severity": "A&E"}'))
    assert as_prediction(ok.value).severity is Severity.A_AND_E
    for bad in (
        '{"condition": "migraine", "severity": "A&E"}',
        '{"condition": "flu", "severity": "GP"}',
    ):
        with pytest.raises(StructuredOutputError):
            validated(schema, Generation(text=bad))
    assert prediction_schema(("flu", "common-cold")) is schema  # one grammar per id set
    empty = prediction_schema(())
    assert empty.model_fields["condition"].annotation.__args__ == ("inconclusive",)


def test_route_decision_is_bounded():
    check_bounded(RouteDecision)


def test_follow_ups_are_three_and_fit_the_severity():
    assert (
        follow_up_questions(Severity.A_AND_E, "Stroke")[1]
        == "What should I tell the 999 call handler?"
    )
    assert len(follow_up_questions(None, None)) == 3
    assert "common cold" in follow_up_questions(Severity.SELF_CARE, "Common cold")[0]


def test_demographics_sentence():
    assert Demographics().describe() == "No patient details given."
    text = Demographics(age_band=AgeBand.OVER_65, pregnant=True).describe()
    assert text == "Patient details: age 65 or over, currently pregnant."

"""Each red-flag rule: phrasings that must fire it, and phrasings (negations) that must not."""

from __future__ import annotations

import pytest

from docgemma.triage.demographics import AgeBand, Demographics
from docgemma.triage.red_flag_rules import RULES
from docgemma.triage.red_flags import check, enforce
from docgemma.triage.severity import Severity

BABY = Demographics(age_band=AgeBand.UNDER_3_MONTHS)
TODDLER = Demographics(age_band=AgeBand.MONTHS_3_TO_5_YEARS)
PREGNANT = Demographics(pregnant=True)

FIRES: list[tuple[str, str, Demographics | None]] = [
    ("chest_pain_breathless", "I have crushing chest pain and I'm short of breath", None),
    ("chest_pain_breathless", "pain in my chest and I can’t breathe properly", None),
    ("chest_pain_breathless", "Chest tightness spreading to my left arm and I'm sweating", None),
    ("stroke_signs", "My dad's face is drooping on one side", None),
    ("stroke_signs", "she suddenly has slurred speech", None),
    ("stroke_signs", "I can't lift my arm and my words are slurred", None),
    ("severe_bleeding", "I cut my hand and it won't stop bleeding", None),
    ("severe_bleeding", "He is vomiting blood", None),
    ("anaphylaxis", "After a wasp sting my throat is swelling", None),
    ("anaphylaxis", "I ate peanuts and now I'm struggling to breathe", None),
    ("anaphylaxis", "my tongue is swollen", None),
    ("suicidal_intent", "I want to kill myself", None),
    ("suicidal_intent", "I've been having suicidal thoughts", None),
    ("baby_fever", "She has a temperature of 38.5", BABY),
    ("young_baby_fever", "my 6 week old baby has a fever", None),
    ("meningitis_signs", "he has a rash that doesn't fade under a glass", None),
    ("meningitis_signs", "stiff neck and a high temperature", None),
    ("unconscious_or_seizure", "my son is having a fit", None),
    ("unconscious_or_seizure", "she collapsed and is unresponsive", None),
    ("severe_breathing", "my lips are turning blue", None),
    ("pregnancy_bleeding_or_severe_pain", "I have severe tummy pain", PREGNANT),
    ("pregnancy_bleeding_or_severe_pain", "I'm bleeding a little", PREGNANT),
    ("pregnancy_tummy_pain", "I have some stomach cramps", PREGNANT),
]

QUIET: list[tuple[str, str, Demographics | None]] = [
    ("chest_pain_breathless", "I have a cough but no chest pain", None),
    ("chest_pain_breathless", "chest pain when I press on my rib, not breathless at all", None),
    ("chest_pain_breathless", "No chest pain or shortness of breath, just a runny nose", None),
    ("stroke_signs", "no face drooping and no slurred speech", None),
    ("severe_bleeding", "a small cut, there is no heavy bleeding", None),
    ("severe_bleeding", "the bleeding has stopped", None),
    ("anaphylaxis", "stung by a bee, the spot is red but I have no trouble breathing", None),
    ("anaphylaxis", "my throat is not swollen, it is just sore", None),
    ("suicidal_intent", "I am not suicidal, just tired all the time", None),
    ("suicidal_intent", "I don't want to die from this, is it serious?", None),
    ("baby_fever", "She has a temperature of 38.5", TODDLER),
    ("baby_fever", "She has a temperature of 38.5", None),
    ("young_baby_fever", "my 6 week old baby has no fever but is sleepy", None),
    ("meningitis_signs", "a rash that fades when I press a glass on it", None),
    ("meningitis_signs", "a stiff neck from sleeping badly, no fever, no headache", None),
    ("unconscious_or_seizure", "she never collapsed and has not had a seizure", None),
    ("severe_breathing", "I can breathe fine, my nose is blocked", None),
    ("pregnancy_bleeding_or_severe_pain", "I have severe tummy pain", None),
    ("pregnancy_tummy_pain", "I have some stomach cramps", None),
    ("pregnancy_tummy_pain", "no tummy pain, just tired", PREGNANT),
]


def test_every_rule_has_cases_both_ways():
    ids = {r.id for r in RULES}
    assert ids == {rule for rule, _, _ in FIRES}
    assert ids == {rule for rule, _, _ in QUIET}


@pytest.mark.parametrize(("rule", "text", "who"), FIRES, ids=[f"{r}:{t}" for r, t, _ in FIRES])
def test_rule_fires(rule, text, who):
    fired = {f.rule_id: f for f in check(text, who)}
    assert rule in fired
    assert fired[rule].evidence and all(
        e in text.lower().replace("’", "'") for e in fired[rule].evidence
    )
    assert rule in fired[rule].reasoning_line()


@pytest.mark.parametrize(("rule", "text", "who"), QUIET, ids=[f"{r}:{t}" for r, t, _ in QUIET])
def test_rule_stays_quiet(rule, text, who):
    assert rule not in {f.rule_id for f in check(text, who)}


def test_ordinary_symptoms_fire_nothing():
    assert check("I have had a sore throat and a runny nose for two days") == []


def test_red_flags_are_a_and_e_except_the_pregnancy_floor():
    for rule in RULES:
        expected = (
            Severity.URGENT_PRIMARY_CARE if rule.id == "pregnancy_tummy_pain" else Severity.A_AND_E
        )
        assert rule.severity is expected


@pytest.mark.parametrize("predicted", list(Severity))
def test_enforce_raises_any_prediction_to_a_and_e(predicted):
    fired = check("face drooping and slurred speech")
    assert enforce(predicted, fired) is Severity.A_AND_E


def test_enforce_never_lowers_the_model():
    fired = check("some stomach cramps", PREGNANT)
    assert enforce(Severity.SELF_CARE, fired) is Severity.URGENT_PRIMARY_CARE
    assert enforce(Severity.A_AND_E, fired) is Severity.A_AND_E
    assert enforce(Severity.SELF_CARE, []) is Severity.SELF_CARE

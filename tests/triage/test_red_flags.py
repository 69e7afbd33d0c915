"""The triage mode's red flags are the shared table's rows with patient advice: the form's
details count as the table's facts, and a fired row sets a severity no model can lower.
(Each row's phrasings both ways are tested with the table, ``tests/red_flags``.)"""

from __future__ import annotations

import pytest

from docgemma.red_flags.match import matches
from docgemma.red_flags.table import BY_ID, RULES
from docgemma.severity import Severity
from docgemma.triage.demographics import AgeBand, Demographics
from docgemma.triage.red_flags import PATIENT_RULES, check, enforce

BABY = Demographics(age_band=AgeBand.UNDER_3_MONTHS)
TODDLER = Demographics(age_band=AgeBand.MONTHS_3_TO_5_YEARS)
PREGNANT = Demographics(pregnant=True)


def test_triage_reads_the_one_shared_table():
    assert PATIENT_RULES and all(any(rule is row for row in RULES) for rule in PATIENT_RULES)
    assert {r.id for r in RULES if r.patient is not None} == {r.id for r in PATIENT_RULES}


def test_a_row_added_for_clinicians_also_guards_patients():
    (fired,) = check("Suddenly the worst headache of my life, it came on in seconds")
    row = BY_ID["thunderclap_headache"]
    assert fired.rule_id == row.id and row.patient is not None
    assert (fired.title, fired.advice, fired.severity) == (
        row.patient.title,
        row.patient.advice,
        Severity.A_AND_E,
    )
    assert "thunderclap_headache" in fired.reasoning_line()


def test_a_row_without_patient_advice_never_fires_in_triage():
    assert BY_ID["severe_hyperkalaemia"].patient is None
    assert check("the hospital rang: my potassium is 6.8") == []


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        ("severe_hyponatraemia", "the GP rang to say my sodium is 114"),
        ("severe_hypercalcaemia", "my adjusted calcium came back at 3.7"),
        ("acute_leukaemia_signs", "they said my white cell count was 180"),
        ("thrombotic_microangiopathy", "platelets 12 with schistocytes on the film"),
    ],
)
def test_lab_value_rows_are_for_clinicians_only(rule, text):
    assert BY_ID[rule].patient is None
    assert rule in {m.rule.id for m in matches(text)}
    assert check(text) == []


@pytest.mark.parametrize(
    ("text", "who", "rule"),
    [
        ("She has a temperature of 38.5", BABY, "infant_fever"),
        ("I'm bleeding a little", PREGNANT, "pregnancy_bleeding_or_severe_pain"),
        ("I have some stomach cramps", PREGNANT, "pregnancy_tummy_pain"),
        ("the baby has stopped kicking", PREGNANT, "reduced_fetal_movements"),
        ("there is a bruise on her leg", BABY, "unexplained_injury_infant"),
        ("she is floppy and grunting", BABY, "seriously_unwell_child"),
    ],
)
def test_form_details_count_as_the_tables_facts(text, who, rule):
    assert rule in {f.rule_id for f in check(text, who)}
    assert rule not in {f.rule_id for f in check(text, TODDLER)}


def test_the_patients_words_are_the_evidence():
    text = "i ate peanuts and now i'm struggling to breathe"
    fired = {f.rule_id: f for f in check(text)}["anaphylaxis"]
    assert fired.evidence == ("peanuts", "struggling to breathe")


def test_ordinary_symptoms_fire_nothing():
    assert check("I have had a sore throat and a runny nose for two days") == []


def test_the_floor_is_a_and_e_except_where_a_row_says_gp_today():
    same_day = {r.id for r in PATIENT_RULES if r.patient.severity is Severity.URGENT_PRIMARY_CARE}
    assert "pregnancy_tummy_pain" in same_day and "thunderclap_headache" not in same_day
    assert {"kawasaki_signs", "projectile_vomiting_infant", "spinal_epidural_abscess"} <= same_day
    assert not {"cord_prolapse", "postpartum_haemorrhage", "carbon_monoxide"} & same_day
    assert {r.patient.severity for r in PATIENT_RULES} <= {
        Severity.A_AND_E,
        Severity.URGENT_PRIMARY_CARE,
    }


@pytest.mark.parametrize("predicted", list(Severity))
def test_enforce_raises_any_prediction_to_a_and_e(predicted):
    fired = check("face drooping and slurred speech")
    assert enforce(predicted, fired) is Severity.A_AND_E


def test_enforce_never_lowers_the_model():
    fired = check("some stomach cramps", PREGNANT)
    assert enforce(Severity.SELF_CARE, fired) is Severity.URGENT_PRIMARY_CARE
    assert enforce(Severity.A_AND_E, fired) is Severity.A_AND_E
    assert enforce(Severity.SELF_CARE, []) is Severity.SELF_CARE

"""How the matcher reads a message: negations and measured values, and the order fired rows
are listed in."""

from __future__ import annotations

import pytest

from docgemma.red_flags.cues import FEVER, TACHYCARDIA
from docgemma.red_flags.match import affirmed, matches, normalise, partly_fires
from docgemma.red_flags.rule import Absent
from docgemma.red_flags.table import BY_ID, RULES, SYMPTOM_ROWS


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("not eating, not herself, temp 38.4", FEVER),
        ("no rash, HR 130", TACHYCARDIA),
        ("denies chest pain, not sweaty, pulse 124", TACHYCARDIA),
    ],
)
def test_a_reading_is_not_denied_by_a_negation_further_back(text, cue):
    assert affirmed(normalise(text), cue)


@pytest.mark.parametrize(
    ("text", "cue"),
    [("no temp 38 at any point", FEVER), ("denies fever, rash or neck stiffness", FEVER)],
)
def test_a_negation_right_before_still_denies(text, cue):
    assert affirmed(normalise(text), cue) is None


@pytest.mark.parametrize(
    ("text", "cue", "held"),
    [
        ("HIV, not on ART, dry cough for three weeks", r"dry cough", True),
        ("ten days old, not feeding, femoral pulses weak", r"femoral pulses weak", True),
        ("not tachycardic, hypoxic or hypotensive", r"hypotensive", False),
        ("not tachycardic, hypoxic or hypotensive", r"hypoxic", False),
        ("no fever, rash or neck stiffness", r"neck stiffness", False),
        ("denies chest pain, breathlessness", r"breathlessness", False),
    ],
)
def test_a_verb_negation_ends_at_a_comma_unless_the_list_goes_on(text, cue, held):
    assert (affirmed(normalise(text), cue) is not None) is held


def test_symptom_rows_come_after_every_row_that_names_a_cause():
    order = [rule.id for rule in RULES]
    last_cause = max(i for i, rule_id in enumerate(order) if rule_id not in SYMPTOM_ROWS)
    assert all(order.index(rule_id) > last_cause for rule_id in SYMPTOM_ROWS)


@pytest.mark.parametrize(
    ("text", "cause", "symptom"),
    [
        (
            "found with empty packets of amitriptyline, GCS 9, had a seizure, QRS 150 ms",
            "tricyclic_overdose",
            "unconscious_or_seizure",
        ),
        (
            "d4 post TKR, collapsed on the ward, SpO2 87%, HR 125, chest pain",
            "post_op_deterioration",
            "chest_pain_breathless",
        ),
    ],
)
def test_a_cause_is_listed_before_the_symptom_it_fires_with(text, cause, symptom):
    fired = [m.rule.id for m in matches(text)]
    assert fired.index(cause) < fired.index(symptom)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("spots that dont blanch", "spots that don't blanch"),
        ("he cant walk and wont settle", "he can't walk and won't settle"),
        ("she isnt eating, doesnt respond", "she isn't eating, doesn't respond"),
        ("Cannot stand", "can't stand"),
    ],
)
def test_a_contraction_typed_without_its_apostrophe_reads_as_one(typed, read):
    assert normalise(typed) == read


def test_a_rash_that_dont_blanch_fires_like_one_that_does_not():
    fired = {m.rule.id for m in matches("3yo, fever 39.6, purple spots that dont blanch")}
    assert "meningococcal_rash" in fired
    assert not matches("3yo with a rash that does blanch, dont think its purpuric, afebrile")


def test_a_row_fired_in_part_gives_the_words_of_its_first_cue_that_holds() -> None:
    row = BY_ID["atypical_acs"]
    assert partly_fires(row, normalise("58M, grey and clammy since lunch")) == "clammy"
    assert partly_fires(row, normalise("58M, not grey or clammy")) is None
    # a pregnancy stated only by the caller's form is not a word the case says
    assert partly_fires(BY_ID["pregnancy_bleeding_or_severe_pain"], normalise("feels fine")) is None


@pytest.mark.parametrize(
    ("row", "text"),
    [
        ("collapse_in_young_woman", "24F, feels well"),
        ("atypical_acs", "80 year old man, feels well"),
        ("atypical_acs", "a 70-year-old woman, feels well"),
        ("atypical_acs", "elderly woman, feels well"),
        ("atypical_acs", "woman in her 70s, feels well"),
    ],
)
def test_who_the_patient_is_is_not_a_word_of_the_row(row: str, text: str) -> None:
    """A row fired in part needs a finding: the patient's age and sex are not one."""
    assert partly_fires(BY_ID[row], normalise(text)) is None
    assert partly_fires(BY_ID[row], normalise(text + ", grey and faint")) in {"grey", "faint"}


def test_a_trigger_whose_absence_is_said_gives_no_words() -> None:
    """Weakness of both legs for years, in known MS, is not Guillain-Barré in part."""
    row = BY_ID["ascending_weakness"]
    assert any(isinstance(c, Absent) for t in row.triggers for c in t)
    chronic = "45F, numbness and weakness in both legs for several years, known MS"
    assert partly_fires(row, normalise(chronic)) is None
    assert partly_fires(row, normalise("45F, numbness and weakness in both legs")) is not None

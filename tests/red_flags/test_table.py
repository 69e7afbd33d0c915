"""Each row of the red-flag table: phrasings that must fire it (a clinician's and, where the
row has patient advice, a patient's) and negated phrasings that must not."""

from __future__ import annotations

import pytest

from docgemma.red_flags.match import matches, normalise
from docgemma.red_flags.rule import Fact
from docgemma.red_flags.table import RULES

PREGNANT = {Fact.PREGNANT}
INFANT = {Fact.YOUNG_INFANT}

FIRES: list[tuple[str, str, set[Fact]]] = [
    ("post_op_deterioration", "POD 2 after a laparotomy, now tachypnoeic with SpO2 89%", set()),
    ("post_op_deterioration", "Two days after her knee surgery she is hypotensive", set()),
    ("post_op_deterioration", "I had an operation on Monday and now I'm short of breath", set()),
    ("chest_pain_breathless", "61M with central chest pain and diaphoresis", set()),
    ("chest_pain_breathless", "I have crushing chest pain and I'm short of breath", set()),
    ("chest_pain_breathless", "Chest tightness spreading to my left arm and I'm sweating", set()),
    ("chest_pain_breathless", "woman presenting with chest pain, HR 130", set()),
    ("tearing_pain", "sudden tearing pain going through to his back", set()),
    ("tearing_pain", "chest pain radiating between the shoulder blades", set()),
    ("acute_breathlessness", "acute dyspnoea with sats of 86% on air", set()),
    ("acute_breathlessness", "short of breath and coughing up blood since yesterday", set()),
    ("tension_pneumothorax", "trachea deviated to the left after a fall onto his ribs", set()),
    ("tension_pneumothorax", "stab wound to the chest, now breathless", set()),
    ("anaphylaxis", "After a wasp sting my throat is swelling", set()),
    ("anaphylaxis", "I ate peanuts and now I'm struggling to breathe", set()),
    ("anaphylaxis", "urticaria and wheeze ten minutes into the antibiotic infusion", set()),
    ("upper_airway", "febrile child sitting forward, drooling, with stridor", set()),
    ("severe_breathing", "my lips are turning blue", set()),
    ("severe_breathing", "asthmatic with a silent chest", set()),
    ("exertional_syncope", "teenager who collapsed while running", set()),
    ("exertional_syncope", "syncope preceded by palpitations", set()),
    ("thunderclap_headache", "sudden-onset occipital headache, maximal at onset", set()),
    ("thunderclap_headache", "describes it as the worst headache of her life", set()),
    ("thunderclap_headache", "what are the red flags of a thunderclap headache", set()),
    ("thunderclap_headache", "headache that peaked within a minute during exertion", set()),
    ("meningitis_signs", "pyrexial with neck stiffness", set()),
    ("meningitis_signs", "stiff neck and a high temperature", set()),
    ("meningitis_signs", "fever and photophobia for a day", set()),
    ("stroke_signs", "right-sided weakness and expressive aphasia since 9am", set()),
    ("stroke_signs", "My dad's face is drooping on one side", set()),
    ("stroke_signs", "she suddenly has slurred speech", set()),
    ("unconscious_or_seizure", "GCS 8 on arrival", set()),
    ("unconscious_or_seizure", "my son is having a fit", set()),
    ("head_injury", "fell and hit her head; she takes rivaroxaban", set()),
    ("head_injury", "head injury with two episodes of vomiting", set()),
    ("cauda_equina", "sciatica with new urinary retention", set()),
    ("cauda_equina", "back pain and numbness between my legs", set()),
    ("cancer_back_pain", "known metastatic prostate cancer with new thoracic back pain", set()),
    ("giant_cell_arteritis", "72F with jaw claudication and a temporal headache", set()),
    ("giant_cell_arteritis", "new headache and scalp tenderness at 68", set()),
    ("sudden_visual_loss", "sudden painless loss of vision in the right eye", set()),
    ("acute_angle_closure", "painful red eye with haloes around lights and vomiting", set()),
    ("suicidal_intent", "I want to kill myself", set()),
    ("suicidal_intent", "reports active suicidal ideation with a plan", set()),
    ("pregnancy_bleeding_or_severe_pain", "8 weeks pregnant with PV bleeding", set()),
    ("pregnancy_bleeding_or_severe_pain", "positive pregnancy test, severe pelvic pain", set()),
    ("pregnancy_bleeding_or_severe_pain", "I'm bleeding a little", PREGNANT),
    ("pregnancy_bleeding_or_severe_pain", "I have severe tummy pain", PREGNANT),
    ("pregnancy_tummy_pain", "missed period and right iliac fossa pain", set()),
    ("pregnancy_tummy_pain", "I have some stomach cramps", PREGNANT),
    ("pregnancy_hypertension_signs", "34 weeks pregnant with a headache and blurred vision", set()),
    ("pregnancy_hypertension_signs", "gave birth 5 days ago, now a severe headache", set()),
    ("abdominal_pain_shock", "abdominal pain radiating to the back with BP 82/40", set()),
    ("abdominal_pain_shock", "pulsatile abdominal mass on examination", set()),
    ("peritonitis", "rigid abdomen with guarding", set()),
    ("mesenteric_ischaemia", "abdominal pain out of proportion to examination findings", set()),
    ("mesenteric_ischaemia", "epigastric pain in a man with AF off anticoagulation", set()),
    ("gi_bleed", "coffee-ground vomiting overnight", set()),
    ("gi_bleed", "He is vomiting blood", set()),
    ("severe_bleeding", "I cut my hand and it won't stop bleeding", set()),
    ("testicular_pain", "sudden onset severe scrotal pain in a 15-year-old", set()),
    ("diabetic_ketoacidosis", "type 1 diabetic with vomiting and Kussmaul breathing", set()),
    ("sepsis_signs", "febrile and hypotensive, lactate 4.5", set()),
    ("sepsis_signs", "his skin looks mottled and he is confused", set()),
    ("meningococcal_rash", "purpuric rash on the legs", set()),
    ("meningococcal_rash", "he has a rash that doesn't fade under a glass", set()),
    ("neutropenic_fever", "temperature of 38.3 on day 10 of chemotherapy", set()),
    ("infant_fever", "a 5-week-old with a fever of 38.2", set()),
    ("infant_fever", "She has a temperature of 38.5", INFANT),
    ("bilious_vomiting", "a 3-day-old with bilious vomiting", set()),
    ("returned_traveller_fever", "fever a week after coming back from Ghana", set()),
    ("returned_traveller_fever", "fever and rigors after returning from Kenya", set()),
    ("necrotising_infection", "cellulitis with pain out of proportion", set()),
    ("necrotising_infection", "rapidly spreading redness and crepitus on the thigh", set()),
    ("compartment_syndrome", "tibial fracture with pain on passive stretch of the toes", set()),
    ("acute_limb_ischaemia", "cold, pale, painful left leg with absent pedal pulses", set()),
    ("overdose", "took 30 paracetamol tablets six hours ago", set()),
    ("overdose", "staggered overdose of co-codamol", set()),
    ("severe_hyperkalaemia", "K 6.4 on the morning bloods", set()),
    ("severe_hyperkalaemia", "potassium is 7.1, what do I do", set()),
]
"""Rows fired by these words ("took 30 paracetamol tablets" "returning from Kenya" …)."""

QUIET: list[tuple[str, str, set[Fact]]] = [
    ("post_op_deterioration", "post-op day 1, comfortable, no shortness of breath", set()),
    ("chest_pain_breathless", "denies chest pain, SOB or palpitations", set()),
    ("chest_pain_breathless", "I have a cough but no chest pain", set()),
    ("chest_pain_breathless", "chest pain when I press on my rib, not breathless at all", set()),
    ("tearing_pain", "no tearing pain, the back pain is mechanical", set()),
    ("acute_breathlessness", "not breathless; sats 97% on air", set()),
    ("tension_pneumothorax", "trachea central, breath sounds equal", set()),
    ("anaphylaxis", "my throat is not swollen, it is just sore", set()),
    ("anaphylaxis", "stung by a bee, the spot is red but I have no trouble breathing", set()),
    ("upper_airway", "no stridor and no drooling", set()),
    ("severe_breathing", "I can breathe fine, my nose is blocked", set()),
    ("exertional_syncope", "never fainted, no palpitations", set()),
    ("thunderclap_headache", "gradual headache over a week, not sudden, not the worst ever", set()),
    ("thunderclap_headache", "no thunderclap onset; tension-type features", set()),
    ("meningitis_signs", "fever but no neck stiffness and no photophobia", set()),
    ("meningitis_signs", "a stiff neck from sleeping badly, no fever, no headache", set()),
    ("stroke_signs", "no facial droop and no slurred speech", set()),
    ("unconscious_or_seizure", "she never collapsed and has not had a seizure", set()),
    ("head_injury", "no head injury; on warfarin for AF", set()),
    ("cauda_equina", "back pain with no saddle anaesthesia and no retention", set()),
    ("cancer_back_pain", "back pain, no history of cancer", set()),
    ("giant_cell_arteritis", "no jaw claudication and no scalp tenderness", set()),
    ("sudden_visual_loss", "no sudden loss of vision", set()),
    ("acute_angle_closure", "red eye, not painful, no change in vision", set()),
    ("suicidal_intent", "I am not suicidal, just tired all the time", set()),
    ("suicidal_intent", "I don't want to die from this, is it serious?", set()),
    ("pregnancy_bleeding_or_severe_pain", "not pregnant; heavy period with clots", set()),
    ("pregnancy_bleeding_or_severe_pain", "I have severe tummy pain", set()),
    ("pregnancy_tummy_pain", "no tummy pain, just tired", PREGNANT),
    ("pregnancy_tummy_pain", "I have some stomach cramps", set()),
    ("pregnancy_hypertension_signs", "pregnant, no headache, no visual disturbance", set()),
    ("abdominal_pain_shock", "abdominal pain, not hypotensive, no collapse", set()),
    ("peritonitis", "soft abdomen, no guarding", set()),
    ("mesenteric_ischaemia", "no abdominal pain; AF rate controlled", set()),
    ("gi_bleed", "no haematemesis and no melaena", set()),
    ("severe_bleeding", "a small cut, there is no heavy bleeding", set()),
    ("severe_bleeding", "the bleeding has stopped", set()),
    ("testicular_pain", "no testicular pain or swelling", set()),
    ("diabetic_ketoacidosis", "diabetic, no vomiting, ketones negative", set()),
    ("sepsis_signs", "afebrile, not confused, no mottling", set()),
    ("meningococcal_rash", "a rash that fades when I press a glass on it", set()),
    ("neutropenic_fever", "finished chemotherapy last year, no fever", set()),
    ("infant_fever", "my 6 week old baby has no fever but is sleepy", set()),
    ("infant_fever", "She has a temperature of 38.5", set()),
    ("bilious_vomiting", "vomiting milk, not bilious", set()),
    ("returned_traveller_fever", "back from Spain last week, no fever", set()),
    ("necrotising_infection", "cellulitis, no crepitus, not spreading quickly", set()),
    ("compartment_syndrome", "cast fitted yesterday, no pain on passive stretch", set()),
    ("acute_limb_ischaemia", "foot warm and pink, pedal pulses present", set()),
    ("overdose", "no overdose, took her usual two tablets", set()),
    ("severe_hyperkalaemia", "K 5.2 on the morning bloods", set()),
    ("severe_hyperkalaemia", "potassium not 6.5 — that was a haemolysed sample from 2019", set()),
]

ORDINARY = [
    "What is the first-line antihypertensive for a 50-year-old?",
    "How should I titrate levothyroxine?",
    "I have had a sore throat and a runny nose for two days",
    "Interaction between simvastatin and clarithromycin?",
    "What dose of amoxicillin for otitis media in a child?",
    "Potassium of 5.4, is that ok?",
    "Tension-type headache after a long day, eases with paracetamol",
]


def test_the_table_is_large_and_each_row_complete():
    assert len(RULES) >= 25
    for rule in RULES:
        assert rule.id and rule.presentation and rule.exclude and rule.first and rule.triggers


def test_every_row_has_cases_both_ways():
    ids = {r.id for r in RULES}
    assert ids == {rule for rule, _, _ in FIRES}
    assert ids == {rule for rule, _, _ in QUIET}


@pytest.mark.parametrize(("rule", "text", "facts"), FIRES, ids=[f"{r}:{t}" for r, t, _ in FIRES])
def test_row_fires(rule, text, facts):
    fired = {m.rule.id: m for m in matches(text, facts)}
    assert rule in fired
    assert fired[rule].evidence and all(e in normalise(text) for e in fired[rule].evidence)


@pytest.mark.parametrize(("rule", "text", "facts"), QUIET, ids=[f"{r}:{t}" for r, t, _ in QUIET])
def test_row_stays_quiet(rule, text, facts):
    assert rule not in {m.rule.id for m in matches(text, facts)}


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_questions_fire_nothing(text):
    assert matches(text) == []

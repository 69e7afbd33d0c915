"""The synthetic patients: who they are and what is wrong with them.

Chosen to exercise the agent: a unique name (John Smith, id ``abc-123``), three
patients named James Wilson (the multiple-match path), and patients on the drugs the
safety and interaction tools are tested with (warfarin, metformin, amiodarone,
dofetilide, lisinopril), with the labs that matter for them (potassium, creatinine,
magnesium, HbA1c, INR, QTc). Everything here is invented.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PatientSpec:
    id: str
    given: str
    family: str
    gender: str
    birth_date: str
    conditions: tuple[str, ...]
    medications: tuple[tuple[str, str, str], ...]
    """(drug, dose, frequency)."""
    allergies: tuple[tuple[str, str, str], ...] = ()
    """(substance, reaction, severity)."""
    labs: dict[str, float] = field(default_factory=dict)
    """Latest value of each lab beyond the basic panel; earlier values drift around it."""
    note: str = ""
    imaging: str | None = None


COHORT: tuple[PatientSpec, ...] = (
    PatientSpec(
        "abc-123",
        "John",
        "Smith",
        "male",
        "1958-04-12",
        ("t2dm", "hypertension", "ckd3"),
        (
            ("metformin", "500 mg", "twice daily"),
            ("lisinopril", "20 mg", "once daily"),
            ("atorvastatin", "40 mg", "at night"),
        ),
        (("penicillin", "hives", "moderate"),),
        {
            "potassium": 5.1,
            "creatinine": 1.6,
            "egfr": 44,
            "magnesium": 1.9,
            "hba1c": 7.8,
            "glucose": 162,
        },
        "Diabetes follow-up. Home glucose readings 140-190 fasting. eGFR has fallen from 52 to "
        "44 over "
        "a year; metformin dose kept at 500 mg twice daily for renal function. Potassium "
        "upper-normal on "
        "lisinopril. Plan: repeat renal panel in 3 months, reinforce diet, consider SGLT2 "
        "inhibitor.",
    ),
    PatientSpec(
        "mgarcia-001",
        "Maria",
        "Garcia",
        "female",
        "1949-09-30",
        ("af", "hypertension", "osteoarthritis"),
        (("warfarin", "5 mg", "once daily"), ("metoprolol", "50 mg", "twice daily")),
        (("sulfamethoxazole", "rash", "mild"),),
        {"inr": 2.6, "potassium": 4.2, "creatinine": 0.9, "magnesium": 2.0},
        "Seen after a mechanical fall at home, struck head, no loss of consciousness. On "
        "warfarin for "
        "atrial fibrillation, INR 2.6. CT head ordered given anticoagulation: no acute bleed. Rate "
        "controlled on metoprolol. Plan: falls assessment, continue anticoagulation.",
        imaging="ct_head",
    ),
    PatientSpec(
        "jwilson-1945",
        "James",
        "Wilson",
        "male",
        "1945-01-17",
        ("af", "heart_failure"),
        (
            ("amiodarone", "200 mg", "once daily"),
            ("warfarin", "2.5 mg", "once daily"),
            ("furosemide", "40 mg", "once daily"),
        ),
        (),
        {"potassium": 3.6, "magnesium": 1.7, "creatinine": 1.3, "tsh": 5.8, "inr": 3.1},
        "Heart failure review. Mild ankle oedema, no orthopnoea. INR has risen to 3.1 since "
        "amiodarone "
        "was started; warfarin reduced to 2.5 mg. TSH mildly raised on amiodarone. Plan: INR "
        "in one "
        "week, thyroid function in six weeks, keep potassium above 4.0.",
    ),
    PatientSpec(
        "jwilson-1972",
        "James",
        "Wilson",
        "male",
        "1972-06-05",
        ("af", "migraine"),
        (("dofetilide", "500 mcg", "twice daily"),),
        (("aspirin", "wheezing", "moderate"),),
        {"potassium": 3.9, "magnesium": 1.8, "creatinine": 1.0, "qtc": 455},
        "Rhythm clinic. Sinus rhythm maintained on dofetilide since ablation. QTc 455 ms, stable. "
        "Headaches with visual aura; MRI brain unremarkable. Plan: ECG and creatinine every three "
        "months, avoid QT-prolonging drugs, keep magnesium above 2.0.",
        imaging="mr_brain",
    ),
    PatientSpec(
        "jwilson-1990",
        "James",
        "Wilson",
        "male",
        "1990-11-23",
        ("asthma",),
        (("albuterol", "2 puffs", "every 4 hours as needed"),),
        (("peanut", "anaphylaxis", "severe"),),
        {},
        "Asthma review. Reliever use twice a week, no night waking. Carries an adrenaline "
        "auto-injector for peanut anaphylaxis. Plan: continue reliever, review inhaler technique.",
    ),
    PatientSpec(
        "lchen-002",
        "Linda",
        "Chen",
        "female",
        "1961-03-08",
        ("heart_failure", "hypertension", "ckd3"),
        (("lisinopril", "10 mg", "once daily"), ("spironolactone", "25 mg", "once daily")),
        (),
        {"potassium": 5.6, "creatinine": 1.8, "egfr": 31, "magnesium": 2.1},
        "Potassium 5.6 on lisinopril plus spironolactone with declining renal function. No ECG "
        "changes. CT abdomen for flank pain showed no obstruction. Plan: hold spironolactone, "
        "repeat "
        "potassium in 72 hours, low-potassium diet advice.",
        imaging="ct_abdomen",
    ),
    PatientSpec(
        "rpatel-003",
        "Raj",
        "Patel",
        "male",
        "1967-08-19",
        ("t2dm", "hyperlipidemia"),
        (
            ("metformin", "1000 mg", "twice daily"),
            ("insulin glargine", "20 units", "at night"),
            ("atorvastatin", "20 mg", "at night"),
        ),
        (("codeine", "nausea", "mild"),),
        {"hba1c": 9.1, "glucose": 210, "creatinine": 1.0},
        "HbA1c 9.1 despite metformin and basal insulin. Reports missed doses during night shifts. "
        "Plan: titrate glargine by 2 units every three days to fasting target, dietitian referral.",
    ),
    PatientSpec(
        "sokafor-004",
        "Sarah",
        "Okafor",
        "female",
        "1983-12-02",
        ("hypothyroidism",),
        (("levothyroxine", "75 mcg", "once daily"),),
        (("latex", "contact dermatitis", "moderate"),),
        {"tsh": 2.1},
        "Thyroid review. Euthyroid on levothyroxine 75 mcg, TSH 2.1. No symptoms. Plan: annual "
        "TSH.",
    ),
    PatientSpec(
        "dnguyen-005",
        "David",
        "Nguyen",
        "male",
        "1952-05-27",
        ("copd", "vt"),
        (("amiodarone", "400 mg", "once daily"), ("tiotropium", "18 mcg", "once daily")),
        (),
        {"magnesium": 1.6, "potassium": 3.4, "creatinine": 1.1, "tsh": 3.2},
        "Ventricular tachycardia on amiodarone. Low potassium 3.4 and magnesium 1.6 raise "
        "arrhythmia "
        "risk. Breathless on exertion; COPD stable on tiotropium. Plan: replace potassium and "
        "magnesium, chest imaging and lung function for amiodarone monitoring.",
    ),
    PatientSpec(
        "emartin-006",
        "Emily",
        "Martin",
        "female",
        "1995-07-14",
        ("migraine",),
        (("sumatriptan", "50 mg", "at onset, may repeat after 2 hours"),),
        (("ibuprofen", "angioedema", "severe"),),
        {},
        "Migraine without aura, about three attacks a month, sumatriptan effective. NSAIDs "
        "contraindicated after angioedema with ibuprofen. Plan: headache diary, consider "
        "prophylaxis.",
    ),
    PatientSpec(
        "tmuller-007",
        "Thomas",
        "Muller",
        "male",
        "1958-10-03",
        ("af", "ckd3"),
        (("dofetilide", "250 mcg", "twice daily"), ("apixaban", "5 mg", "twice daily")),
        (),
        {"creatinine": 1.7, "egfr": 42, "magnesium": 1.9, "potassium": 4.4, "qtc": 470},
        "Dofetilide dose reduced to 250 mcg twice daily for creatinine clearance. QTc 470 ms. "
        "Plan: ECG two to three hours after each dose change, renal function every three months.",
    ),
    PatientSpec(
        "gkim-008",
        "Grace",
        "Kim",
        "female",
        "1940-02-29",
        ("hypertension", "osteoarthritis", "ckd3"),
        (("lisinopril", "5 mg", "once daily"), ("amlodipine", "5 mg", "once daily")),
        (("sulfamethoxazole", "Stevens-Johnson syndrome", "severe"),),
        {"creatinine": 1.4, "egfr": 38, "potassium": 4.8},
        "Blood pressure 138/76 on lisinopril and amlodipine. Knee pain from osteoarthritis; avoid "
        "NSAIDs given kidney function. Plan: paracetamol, physiotherapy, renal panel in six "
        "months.",
    ),
    PatientSpec(
        "ajohnson-009",
        "Aisha",
        "Johnson",
        "female",
        "1978-01-09",
        ("t2dm",),
        (("metformin", "500 mg", "once daily"),),
        (),
        {"hba1c": 6.9, "glucose": 131},
        "New diagnosis of type 2 diabetes, HbA1c 6.9. Started metformin 500 mg once daily with "
        "evening meal. Plan: increase to twice daily in two weeks if tolerated, HbA1c in three "
        "months.",
    ),
)

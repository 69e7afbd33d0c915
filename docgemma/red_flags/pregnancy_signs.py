"""Rows of the red-flag table: pregnancy with bleeding, abdominal pain or raised blood
pressure (ectopic pregnancy, abruption, pre-eclampsia)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ABDO_PAIN,
    BLEEDING,
    BP_WORDS,
    HEADACHE,
    HYPOTENSION,
    POSTPARTUM,
    SEVERE,
    SYNCOPE,
    TACHYCARDIA,
    any_of,
)
from docgemma.red_flags.rule import Fact, PatientAdvice, RedFlagRule
from docgemma.severity import Severity

SEVERE_HYPERTENSION = any_of(
    BP_WORDS + r"(?:1[6-9]\d|2\d\d)\s*(?:/|over)\s*\d{2,3}\b",
    BP_WORDS + r"\d{2,3}\s*(?:/|over)\s*1[1-9]\d\b",
)
"""160/110 mmHg or more."""
HYPERTENSION = any_of(
    BP_WORDS + r"(?:1[4-9]\d|2\d\d)\s*(?:/|over)\s*\d{2,3}\b",
    BP_WORDS + r"\d{2,3}\s*(?:/|over)\s*(?:9\d|1\d\d)\b",
)
"""140/90 mmHg or more."""
PRE_ECLAMPSIA_SIGNS = any_of(
    r"\bproteinuri\w+|\bprotein (?:\+{1,4}|[1-4] ?\+)|protein (?:in|on) (?:the |her |my )?"
    r"(?:urine|dip\w*)",
    r"\b(?:urine |urinary |u)?(?:pcr|protein[:/ ]creatinine ratio)\s*(?:of|is|was|:|=)?\s*"
    r"(?:[3-9]\d|\d{3,})(?!\.?\d)",
    r"\b(?:platelets?|plts?)\s*(?:count\s*)?(?:of|is|was|:|=)?\s*(?:[1-9]|[1-9]\d)(?!\.?\d)"
    r"|\bthrombocytopeni\w+|low platelets",
    r"\b(?:alt|ast|transaminases?)\s*(?:of|is|was|:|=)?\s*(?:[7-9]\d|[1-9]\d{2,})(?!\.?\d)"
    r"|raised (?:alt|ast|transaminases|liver enzymes)",
    r"\bha?emoly\w+|\bclonus\b|(?:o)?edema of (?:the )?(?:face|hands)",
)
"""Proteinuria or organ involvement: protein:creatinine ratio of 30 mg/mmol or more,
platelets below 100, transaminases over 70, haemolysis, clonus."""
PRE_ECLAMPSIA_SYMPTOMS = any_of(
    HEADACHE,
    r"visual (?:disturbance|changes)|blurred vision|flashing lights|epigastric pain|ruq pain"
    r"|\bseizure",
)
JUST_DELIVERED = any_of(
    POSTPARTUM, r"\bpost-?partum\b|gave birth|delivered (?:\w+ )?(?:days?|weeks?) ago"
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "pregnancy_bleeding_or_severe_pain",
        "Pregnancy (or possible pregnancy) with vaginal bleeding or severe abdominal pain",
        ("ectopic pregnancy", "placental abruption", "miscarriage", "uterine rupture"),
        "Confirm the pregnancy (hCG) and its site with transvaginal ultrasound; FBC, group and "
        "save; IV access and resuscitation if unstable; anti-D if rhesus negative when "
        "indicated; immediate gynaecology or obstetric review.",
        (
            (Fact.PREGNANT, BLEEDING),
            (Fact.PREGNANT, SEVERE, ABDO_PAIN),
            (
                Fact.PREGNANT,
                ABDO_PAIN,
                any_of(HYPOTENSION, SYNCOPE, TACHYCARDIA, r"shoulder ?tip pain"),
            ),
        ),
        PatientAdvice(
            "Pregnant with heavy bleeding or severe tummy pain",
            "Call 999 or go to A&E now: heavy bleeding or severe tummy pain in pregnancy must "
            "be checked straight away.",
        ),
    ),
    RedFlagRule(
        "pregnancy_tummy_pain",
        "Abdominal pain in pregnancy",
        (
            "ectopic pregnancy (early pregnancy)",
            "pre-eclampsia (after 20 weeks)",
            "placental abruption",
        ),
        "Confirm where the pregnancy is (hCG, ultrasound) in early pregnancy; after 20 weeks "
        "check blood pressure, urine protein and fetal wellbeing; obstetric review.",
        ((Fact.PREGNANT, ABDO_PAIN),),
        PatientAdvice(
            "Tummy pain during pregnancy",
            "Contact your midwife, GP or maternity unit today: tummy pain in pregnancy should "
            "be checked.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
    RedFlagRule(
        "pregnancy_hypertension_signs",
        "Pregnancy or the weeks after birth with headache, visual disturbance, upper abdominal "
        "pain, a seizure, blood pressure of 160/110 or more, or 140/90 or more with "
        "proteinuria, low platelets or raised transaminases",
        ("pre-eclampsia or eclampsia", "HELLP syndrome"),
        "Blood pressure, urine protein-to-creatinine ratio, FBC, liver and renal function; "
        "labetalol for severe hypertension; magnesium sulfate for severe pre-eclampsia or a "
        "seizure; obstetric team now.",
        (
            (
                JUST_DELIVERED,
                any_of(
                    HEADACHE,
                    r"visual (?:disturbance|changes)|blurred vision"
                    r"|flashing lights|seizure|fitting",
                ),
            ),
            (Fact.PREGNANT, PRE_ECLAMPSIA_SYMPTOMS),
            (Fact.PREGNANT, SEVERE_HYPERTENSION),
            (Fact.PREGNANT, HYPERTENSION, PRE_ECLAMPSIA_SIGNS),
            (JUST_DELIVERED, SEVERE_HYPERTENSION),
        ),
        PatientAdvice(
            "Headache, changes in sight or pain under the ribs in pregnancy",
            "Call your maternity unit now, or 999 if it is severe: these can be signs of "
            "pre-eclampsia.",
        ),
    ),
)

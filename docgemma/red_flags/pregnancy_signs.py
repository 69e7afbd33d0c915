"""Rows of the red-flag table: pregnancy with bleeding, abdominal pain or raised blood
pressure (ectopic pregnancy, abruption, pre-eclampsia). An ectopic pregnancy is a diagnosis
of early pregnancy: once a gestation of 20 weeks or more is stated, bleeding or pain is
read for the diagnoses of the second half."""

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
from docgemma.red_flags.rule import Absent, Fact, PatientAdvice, RedFlagRule
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
_NOT_A_PAST_BIRTH = "".join(
    f"(?<!{word} at )(?<!{word} )"
    for word in ("delivered", "born", "delivery", "svd", "nvd", "lscs", "caesarean", "section")
)
LATE_GESTATION = any_of(
    _NOT_A_PAST_BIRTH + r"\b(?:2\d|3\d|4[0-2])(?:\+[0-6])? ?(?:weeks?|wks?|/40)"
    r"(?! ago| old| post| after| since| of age)",
    _NOT_A_PAST_BIRTH + r"(?<![\d/.])\b(?:2\d|3\d|4[0-2])\+[0-6]\b"
    r"(?! ?(?:years|yrs|y\b|units|iu|u\b|ml|mg|mmol))",
    r"\b(?:second|third|2nd|3rd) trimester\b|\bin labou?r\b",
)
"""A gestation of 20 weeks or more ("35+2 wks", "28/40", "third trimester"), not the
gestation of an earlier birth ("previous baby delivered at 38 weeks")."""
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
            (Fact.PREGNANT, BLEEDING, Absent(LATE_GESTATION)),
            (Fact.PREGNANT, SEVERE, ABDO_PAIN, Absent(LATE_GESTATION)),
            (
                Fact.PREGNANT,
                ABDO_PAIN,
                any_of(HYPOTENSION, SYNCOPE, TACHYCARDIA, r"shoulder ?tip pain"),
                Absent(LATE_GESTATION),
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
        ((Fact.PREGNANT, ABDO_PAIN, Absent(LATE_GESTATION)),),
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
    RedFlagRule(
        "late_pregnancy_pain_or_bleeding",
        "Abdominal pain or vaginal bleeding at 20 weeks or more",
        (
            "placental abruption",
            "pre-eclampsia or eclampsia",
            "HELLP syndrome",
            "uterine rupture (a previous caesarean, or in labour)",
            "placenta praevia (painless bleeding)",
        ),
        "Blood pressure and urine protein; the fetal heart (CTG from 26 weeks); feel the "
        "uterus (tender and hard in an abruption); no vaginal examination until placenta "
        "praevia is excluded by "
        "ultrasound; FBC, clotting, group and save (Kleihauer and anti-D if rhesus negative); "
        "IV access; obstetric review now.",
        ((Fact.PREGNANT, LATE_GESTATION, any_of(ABDO_PAIN, BLEEDING)),),
        PatientAdvice(
            "Tummy pain or bleeding from 20 weeks of pregnancy",
            "Call your maternity unit now, or 999 if the bleeding is heavy or the pain severe: "
            "this needs checking straight away in the second half of pregnancy.",
        ),
    ),
)

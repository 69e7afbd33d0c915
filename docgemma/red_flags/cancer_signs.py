"""Rows of the red-flag table for a cancer hiding behind a common complaint: iron-deficiency
anaemia, a changing mole, hoarseness or earache with a normal ear, bone pain at night, the
signs of myeloma, a white pupil."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ALCOHOL_EXCESS,
    BACK_PAIN,
    CHILD,
    any_of,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule
from docgemma.severity import Severity

YOUNG = any_of(CHILD, r"\b(?:1[6-9]|2\d) ?(?:m|f|yo|y/o)\b|\b(?:1[6-9]|2\d)-year-old")
"""A child or young adult: the ages of primary bone tumours."""
ADULT_OVER_50 = any_of(
    r"\b(?:[5-9]\d|10\d) ?(?:m|f|yo|y/o|yrs?|years?)\b|\b(?:[5-9]\d|10\d)-year-old",
    r"\b(?:[5-9]\d) ?(?:yo|y/o|year old) (?:man|woman|male|female)\b",
)
IRON_DEFICIENCY = any_of(
    r"\bferritin\s*(?:of|is|was|:|=)?\s*(?:[0-9]|1[0-4])(?!\.?\d)",
    r"\bmcv\s*(?:of|is|was|:|=)?\s*(?:[5-7]\d)(?!\.?\d)|\bmicrocytic\b",
    r"iron[- ]deficien\w+",
)
"""A low ferritin or small red cells: blood lost somewhere, often the bowel."""
HB = r"\b(?:hb|haemoglobin|hemoglobin)\s*(?:of|is|was|:|=)?\s*"
"""The words before a haemoglobin's value."""
ANAEMIA = any_of(
    HB + r"(?:[4-9]\d|1[01]\d)\s*g/l\b",
    HB + r"(?:[4-9]|1[01])(?:\.\d)?\s*g/dl\b",
    HB + r"(?:[4-9]\d|1[01]\d)(?!\.?\d)(?! ?g/dl)",
    r"\ban(?:a)?emi(?:a|c)\b",
)
"""A haemoglobin below 120 g/L (12 g/dL)."""
BOWEL_CHANGE = (
    r"(?:stools?|bowels?|poo) (?:\w+ ){0,3}(?:looser|loose|runny|more often|changed)|change (?:in"
    r"|of) (?:\w+ )?bowel habit|\brectal bleed\w*|\bpr bleed\w*|blood (?:in|on) (?:the |his |her )?"
    r"(?:stools?|poo)"
)
CHANGING_MOLE = any_of(
    r"\b(?:mole|naevus|nevus|pigmented (?:lesion|spot))\b[^.;]{0,60}?\b(?:got|getting"
    r"|grown|growing|become|becoming|gone) (?:\w+ )?(?:bigger|larger|darker|raised|irregular)",
    r"\b(?:mole|naevus|nevus|pigmented lesion)\b[^.;]{0,80}?\b(?:irregular (?:edge|border|outline)"
    r"|(?:two|three|several|multiple) (?:shades|colours|colors)|bleed\w*|ulcerat\w+|itch\w*)",
)
"""A mole that has changed in size, shape or colour, or is irregular, bleeding or itching."""
THREE_WEEKS = (
    r"(?:(?:[3-9]|\d{2}|three|four|five|six|eight) ?(?:weeks?|wks?|months?)|(?:a|one|two|several) "
    r"months?)"
)
"""Three weeks or longer."""
HOARSE_OR_EAR = any_of(
    r"\b(?:hoarse\w*|dysphonia|voice (?:has )?changed)\b[^.;]{0,25}?\b(?:for |x )?"
    + THREE_WEEKS
    + r"|\b"
    + THREE_WEEKS
    + r" (?:of )?(?:\w+ )?(?:hoarse\w*|dysphonia)|\bhoarse for (?:over |more than )?"
    + THREE_WEEKS,
    r"(?:ear ?(?:ache|pain)|otalgia)[^.;]{0,60}?\b(?:ear|drum|canal"
    r"|otoscopy)\b[^.;]{0,30}?\b(?:normal|fine|healthy|unremarkable)",
)
HEAD_NECK_RISK = any_of(
    r"(?<!non-)(?<!non )\bsmok\w+|\bpack[- ]?(?:years?|yrs)|\btobacco\b",
    ALCOHOL_EXCESS,
    r"(?:neck|cervical) (?:lump|node|mass|swelling)|\bnode (?:in )?(?:the )?(?:l |r |left "
    r"|right )?neck|lump in (?:the |his |her )?neck|\bpain (?:on )?swallowing\b|\bdysphagi\w+",
)
NIGHT_BONE_PAIN = (
    r"\bpain\b[^.;]{0,60}?\b(?:waking|wakes|woke|wake) (?:him|her|them|me) (?:up )?(?:at night"
    r"|in the night|from sleep)|\bnight pain\b"
)
"""Bone pain that wakes the patient (growing pains ache in both legs and do not)."""
BOTH_LEGS = r"\bboth (?:legs|shins|knees|sides)\b|\bbilateral\b"
BONE_SWELLING = (
    r"\b(?:firm|hard|bony) (?:swelling|lump|mass)|\b(?:swelling|lump|mass) (?:on|over|of|above) "
    r"(?:the |his |her )?(?:\w+ )?(?:bone|femur|tibia|thigh|knee|shin|humerus|arm)"
)
MYELOMA_BLOODS = any_of(
    r"\besr\s*(?:of|is|was|:|=)?\s*(?:[5-9]\d|1\d\d)(?!\.?\d)",
    r"\b(?:total )?protein\s*(?:of|is|was|:|=)?\s*(?:8[5-9]|9\d|1\d\d)\s*g/l",
    r"\bglobulins?\s*(?:of|is|was|:|=)?\s*(?:[4-9]\d)\s*g/l|\bparaprotein\b|\bbence[- ]jones\b",
    r"\b(?:adjusted |corrected )?(?:ca|calcium)\s*(?:of|is|was|:|=)?\s*(?:2\.(?:[6-9])\d*|3\.\d+)"
    r"\s*(?:mmol/l)?",
)
"""Bloods that point to myeloma: a high ESR, a high protein or globulin, a raised calcium."""
WHITE_PUPIL = any_of(
    r"\b(?:white|whitish|yellow) (?:pupil|reflex|glow|reflection)|\bleu?kocoria\b|cat's eye reflex",
    r"\bpupil (?:looks|is|appears) (?:white|whitish)|\bred reflex (?:is )?(?:absent|missing|white)"
    r"|\babsent red reflex|\b(?:eye|pupil)\b[^.;]{0,20}?\bwhite in (?:\w+ )?(?:flash )?photo\w*",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "iron_deficiency_older_adult",
        "Iron-deficiency anaemia in an adult over 50, or with a change in bowel habit",
        ("colorectal cancer (or another gastrointestinal cancer)", "coeliac disease"),
        "Do not treat with iron alone: urgent suspected-cancer referral for colonoscopy and "
        "gastroscopy (FIT test where the pathway uses it); coeliac serology; urinalysis for "
        "blood.",
        (
            (ADULT_OVER_50, IRON_DEFICIENCY, ANAEMIA),
            (IRON_DEFICIENCY, BOWEL_CHANGE),
        ),
    ),
    RedFlagRule(
        "changing_mole",
        "A mole that has grown, darkened or changed shape, or is irregular, multicoloured, "
        "itching or bleeding",
        ("melanoma",),
        "Urgent suspected-cancer referral to dermatology (two-week wait) with a dermoscopy "
        "photograph; do not remove it in primary care or treat it as a seborrhoeic wart.",
        ((CHANGING_MOLE,),),
        PatientAdvice(
            "A mole that has changed in size, shape or colour, or bleeds",
            "See your GP within two weeks: a changing mole needs checking for skin cancer.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
    RedFlagRule(
        "head_neck_cancer_signs",
        "Hoarseness for three weeks or more, or earache with a normal ear, in a smoker or "
        "drinker or with a neck lump or painful swallowing",
        ("head and neck cancer (larynx, pharynx: referred otalgia)",),
        "Urgent suspected-cancer referral to ENT (two-week wait); chest X-ray if a smoker with "
        "hoarseness; examine the neck and the oral cavity.",
        ((HOARSE_OR_EAR, HEAD_NECK_RISK),),
    ),
    RedFlagRule(
        "bone_pain_at_night",
        "Bone pain that wakes a child or young adult at night, or with a firm bony swelling",
        ("primary bone tumour (osteosarcoma, Ewing sarcoma)", "leukaemia", "osteomyelitis"),
        "X-ray of the painful bone today; urgent referral to a sarcoma service if it shows a "
        "lesion; FBC and blood film; do not put it down to growing pains or sport.",
        (
            (NIGHT_BONE_PAIN, any_of(YOUNG, BONE_SWELLING), Absent(BOTH_LEGS)),
            (BONE_SWELLING, r"\bpain\b", YOUNG),
        ),
    ),
    RedFlagRule(
        "myeloma_signs",
        "Back or bone pain, anaemia or infections with a high ESR, protein or calcium, or a "
        "rising creatinine",
        ("multiple myeloma", "bony metastases"),
        "Serum protein electrophoresis with serum free light chains (and urine Bence Jones "
        "protein), FBC and film, calcium, creatinine; same-day haematology if the calcium or "
        "creatinine is high or there is cord compression.",
        ((any_of(BACK_PAIN, r"\bbone pain\b|\binfections\b"), MYELOMA_BLOODS, ANAEMIA),),
    ),
    RedFlagRule(
        "white_pupil",
        "A white pupil or an absent red reflex in a child, in the light or in photographs",
        ("retinoblastoma", "congenital cataract"),
        "Same-day (urgent) ophthalmology referral; check the red reflex of both eyes; do not "
        "reassure from the photographs.",
        ((WHITE_PUPIL, CHILD),),
        PatientAdvice(
            "A white glow in a child's pupil, in a photo or in the light",
            "See a GP or optician today and say what you saw: a white pupil needs an urgent eye "
            "check.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
)

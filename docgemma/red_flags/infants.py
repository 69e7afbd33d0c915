"""Rows of the red-flag table for babies in their first months: jaundice with pale stools, a
duct-dependent heart lesion as the duct closes, whooping cough, and skin that peels off
with a touch."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    BREATHLESS,
    CHILD_AGE,
    FEVER,
    HYPOXIA,
    JAUNDICE,
    any_of,
)
from docgemma.red_flags.rule import Fact, PatientAdvice, RedFlagRule

BABY = any_of(
    CHILD_AGE,
    r"\b(?:baby|babies|newborn|neonate|infant)\b",
)
PALE_STOOLS = any_of(
    r"\b(?:pale|white|chalky|putty|clay|cream|acholic)[\w/ -]{0,25}?\b(?:stools?|poo|poos"
    r"|motions)\b",
    r"\b(?:stools?|poo|poos|motions)\b (?:are |is |look |looks |have been |were |seem )?(?:very "
    r"|quite |sort of )?(?:pale|white|chalky|putty|clay|cream|grey|gray)\b",
    r"dark (?:yellow )?(?:urine|wee)\b[^.;]{0,20}?stain\w*|urine (?:is )?staining the nappy",
)
"""Acholic stools, or dark urine staining the nappy: bilirubin that cannot reach the gut."""
LONG_JAUNDICE = any_of(
    r"\b(?:still|persistent\w*|prolonged)\b[^.;]{0,15}?\b(?:yellow|jaundic\w+)",
    r"\b(?:yellow|jaundiced) at (?:[3-9]|1[0-2]) (?:weeks|wks)\b",
)
"""Jaundice past the first two weeks."""
POOR_PERFUSION = any_of(
    r"\bgrey\b|\bgray\b|\bmottled\b|\bashen\b",
    r"(?:cool|cold) (?:hands and feet|peripheries|extremities)|\bcrt (?:of )?[3-9]",
)
DUCT_SIGNS = any_of(
    r"(?:femoral|leg) pulses? (?:\w+ ){0,3}(?:weak|absent|hard to feel|impalpable|not palpable"
    r"|reduced|difficult to feel)|(?:weak|absent|impalpable) femoral(?:s| pulses?)",
    r"(?:can't|cannot|couldn't|unable to) (?:feel|palpate) (?:the |his |her )?femoral(?:s"
    r"| pulses?)",
    r"\bpre-?ductal\b|\bpost-?ductal\b|(?:sats|spo2|saturations?)\b[^.;]{0,30}?\b(?:hand|arm)\b"
    r"[^.;]{0,30}?\b(?:foot|leg)\b",
)
"""A pulse or oxygen difference between arm and leg: the duct is closing on a coarctation or
another duct-dependent lesion."""
COUGH_BOUTS = any_of(
    r"\bwhoop\w*|\bparoxysm\w*|cough\w* (?:\w+ ){0,3}(?:in|coming in) (?:bouts|fits|spasms)"
    r"|(?:bouts|fits|spasms|spells) of cough\w*|cough(?:ing)? (?:fits|bouts|spasms|spells)",
    r"\b(?:post-?tussive|after (?:the |some )?(?:coughing )?bouts?) vomit\w*"
    r"|vomits? after (?:\w+ )?(?:bouts|coughing)",
)
APNOEA_OR_BLUE = any_of(
    r"\bapno(?:e)?a\w*|\bapne\w+|stop(?:s|ped)? breathing|pauses? in (?:her|his|their) breathing",
    r"(?:goes|went|going|turns?|turned) (?:\w+ )?(?:blue|dusky)|\bcyanos\w+|\bcyanotic\b",
)
SKIN_PEELS = any_of(
    r"skin (?:\w+ ){0,3}(?:wrinkles|peels|slides|comes|coming|peeling|sloughing) (?:and peels )?"
    r"(?:off|away)|\bnikolsky\w*|\bskin sloughing\b|\bsloughing (?:of )?(?:the )?skin\b",
    r"(?:big |large )?(?:floppy|flaccid|fragile) blisters",
)
"""Skin that separates at a touch (Nikolsky's sign), or flaccid blisters."""

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "pale_stool_jaundice",
        "A jaundiced baby with pale stools or dark urine, or jaundice beyond two weeks with either",
        ("biliary atresia (conjugated jaundice: surgery before 8 weeks of age)",),
        "Split (conjugated) bilirubin the same day, with liver function tests and clotting; "
        "vitamin K if the clotting is prolonged; urgent referral to a paediatric liver unit; "
        "look at the stool colour yourself.",
        (
            (JAUNDICE, PALE_STOOLS, BABY),
            (LONG_JAUNDICE, PALE_STOOLS),
        ),
        PatientAdvice(
            "A baby with yellow skin and pale (white, grey or cream) poo",
            "See a GP or midwife today and show them the nappy: pale poo with jaundice needs an "
            "urgent blood test.",
        ),
    ),
    RedFlagRule(
        "duct_dependent_heart",
        "A baby in the first weeks who turns grey, breathless or stops feeding, with weak leg "
        "pulses or lower oxygen in the foot than the hand",
        (
            "duct-dependent congenital heart disease (coarctation, hypoplastic left heart, "
            "transposition)",
            "neonatal sepsis",
        ),
        "Resuscitate and call the neonatal or paediatric team now; start a prostaglandin "
        "(alprostadil) infusion on suspicion; four-limb blood pressures, pre- and post-ductal "
        "saturations, echocardiogram, cardiology retrieval; treat for sepsis too.",
        (
            (
                DUCT_SIGNS,
                any_of(
                    POOR_PERFUSION,
                    BREATHLESS,
                    HYPOXIA,
                    r"\bnot (?:interested in|taking) (?:\w+ )?feeds?|\bpoor feeding",
                ),
            ),
            (Fact.YOUNG_INFANT, DUCT_SIGNS),
        ),
    ),
    RedFlagRule(
        "pertussis_infant",
        "A young baby with coughing fits, a whoop or vomiting after coughing, and pauses in "
        "breathing or going blue",
        ("pertussis (whooping cough) with apnoea",),
        "Admit a baby under six months with apnoea or cyanosis; macrolide antibiotic "
        "(clarithromycin, or azithromycin under one month); FBC for lymphocytosis; pernasal "
        "swab or PCR; notify; prophylaxis for the household.",
        ((COUGH_BOUTS, APNOEA_OR_BLUE, BABY),),
        PatientAdvice(
            "A baby with coughing fits who goes blue or stops breathing",
            "Call 999 if your baby stops breathing or goes blue; otherwise go to A&E now.",
        ),
    ),
    RedFlagRule(
        "scalded_skin",
        "Fever with tender red skin and flaccid blisters, or skin that peels off with a light "
        "touch",
        (
            "staphylococcal scalded skin syndrome",
            "toxic epidermal necrolysis (if the mouth or eyes are involved)",
        ),
        "Admit; IV anti-staphylococcal antibiotics (flucloxacillin); fluids and temperature "
        "care as for a burn; cultures from the nose, umbilicus or the source; paediatric and "
        "dermatology review.",
        ((SKIN_PEELS, any_of(FEVER, BABY, r"\birritable\b|\btender\b")),),
    ),
)

"""Rows of the red-flag table: a child's hip and skin (a limp with hip or knee pain, and
eczema that blisters or erodes)."""

from __future__ import annotations

from docgemma.red_flags.cues import CHILD, FEVER, LIMP, any_of
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule
from docgemma.severity import Severity

CHILD_OR_TEEN = any_of(
    CHILD,
    r"\bteen(?:age|ager|agers)?\b|\badolescen\w+|\bschool(?:boy|girl)\b",
    r"\b1[0-7] ?(?:-| )?(?:years?|yrs?)[- ]old|\b1[0-7] ?(?:yo|y/o)\b|\b1[0-7][mf]\b",
)
HIP_OR_KNEE_PAIN = any_of(
    r"\b(?:hip|knee|thigh|groin) ?(?:pain|ache)\b",
    r"\bpain '?(?:in|around) (?:his|her|their|the|my) (?:right |left )?(?:hip|knee|thigh|groin)",
    r"\b(?:hip|knee) (?:is |was )?(?:painful|sore|hurts|hurting)\b|\b(?:painful|sore) (?:right "
    r"|left )?(?:hip|knee)\b",
)
HIP_SIGNS = any_of(
    r"(?:loss of|lost|reduced|restricted|limited|painful) internal rotation|internal rotation"
    r" (?:is |was )?(?:lost|reduced|restricted|limited|painful|absent)",
    r"obligat\w+ external rotation|\bdrehmann\w*",
    r"(?:leg|hip|thigh|knee) (?:rolls?|rotates?|falls?|goes|turns?) (?:out|outwards|into external"
    r" rotation) (?:on|when|with|as) (?:\w+ ){0,2}flex\w*",
)
"""The slipped epiphysis on examination: the hip will not turn in and rolls out as it bends."""
ECZEMA = r"\beczema\w*|\batopic dermatitis\b|\batopic\b"
PUNCHED_OUT = any_of(
    r"\bpunched[- ]out\b",
    r"\bmonomorphic (?:vesicles|erosions|blisters|lesions|sores)",
    r"\bclusters? of (?:\w+ ){0,3}(?:vesicles|blisters|erosions|sores|ulcers|spots)",
    r"\b(?:clustered|grouped) (?:\w+ ){0,2}(?:vesicles|blisters|erosions|sores|ulcers|spots)",
)
"""Clustered vesicles or punched-out erosions: herpes simplex, not a bacterial infection."""
BLISTERS = r"\bvesic\w+|\bblister\w*|\berosions?\b"
HERPES_HINT = any_of(
    FEVER,
    r"\bcold sores?\b|\bherpe\w*|\bhsv\b",
    r"\b(?:rapidly|quickly|suddenly) (?:\w+ )?(?:worse|worsening|spreading)|\bspreading "
    r"(?:rapidly|quickly|fast)\b|\bpainful\b",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "slipped_epiphysis",
        "A child or adolescent with a limp and hip, thigh or knee pain, or loss of internal "
        "rotation of the hip",
        (
            "slipped capital femoral epiphysis (slipped upper femoral epiphysis, SCFE/SUFE)",
            "septic arthritis or osteomyelitis",
            "Perthes disease",
            "bone tumour",
        ),
        "Examine the hip in every child with knee pain; AP and frog-leg lateral X-rays of "
        "both hips (a knee X-ray will not show it); if slipped: no weight-bearing (crutches or "
        "wheelchair) and same-day orthopaedic referral for fixation; FBC, CRP and temperature "
        "if infection is possible.",
        (
            (CHILD_OR_TEEN, HIP_OR_KNEE_PAIN, LIMP),
            (CHILD_OR_TEEN, HIP_SIGNS),
        ),
        PatientAdvice(
            "A child or teenager who is limping with pain in the hip, thigh or knee",
            "See a GP today, or go to A&E if they cannot put weight on the leg: a limp with hip "
            "or knee pain in a child can be a problem in the hip joint that needs an X-ray.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
    RedFlagRule(
        "eczema_herpeticum",
        "Eczema with punched-out erosions or clustered vesicles, or blisters with fever, pain or "
        "rapid spread",
        (
            "eczema herpeticum (disseminated herpes simplex, Kaposi varicelliform eruption)",
            "secondary bacterial infection (impetigo, staphylococcal or streptococcal sepsis)",
            "herpetic eye disease (if around the eyes)",
        ),
        "Start aciclovir at once (IV if unwell, extensive or in an infant; oral otherwise) "
        "without waiting for the swab; viral swab for HSV PCR and bacterial swab; same-day "
        "dermatology or paediatric review; same-day ophthalmology if lesions are near the "
        "eyes; antibiotics as well if there are signs of bacterial infection.",
        (
            (ECZEMA, PUNCHED_OUT),
            (ECZEMA, BLISTERS, HERPES_HINT),
        ),
        PatientAdvice(
            "Eczema that suddenly gets worse with clusters of blisters or small open sores",
            "Contact your GP surgery today for an urgent appointment, or call NHS 111 — go to "
            "A&E now if the sores are near the eyes, or the person is very unwell or a newborn: "
            "this can be a herpes infection of the eczema that needs antiviral medicine the "
            "same day.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
)

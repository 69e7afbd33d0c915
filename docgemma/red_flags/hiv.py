"""Rows of the red-flag table for HIV: Pneumocystis pneumonia in someone untreated, and the
illness of a new infection (with secondary syphilis, its look-alike)."""

from __future__ import annotations

from docgemma.red_flags.cues import BREATHLESS, FEVER, HYPOXIA, LOW_GRADE_FEVER, any_of
from docgemma.red_flags.rule import RedFlagRule

UNTREATED_HIV = any_of(
    r"\bhiv\b[^.;]{0,60}?\b(?:not on (?:art|arvs?|treatment|antiretrovirals?)|lost to follow-?up"
    r"|defaulted(?: from)?(?: (?:art|treatment|clinic))?"
    r"|stopped (?:art|arvs?|treatment)|untreated|off (?:art|treatment))",
    r"\bcd4\s*(?:count )?(?:of|is|was|:|=)?\s*(?:[0-9]|[0-9]\d"
    r"|1\d\d)(?!\.?\d)(?![^.;]{0,25}\b(?:now|since|rose|risen|last year|previously))",
)
"""HIV without treatment, or a CD4 count below 200."""
EXERTIONAL_DESATURATION = any_of(
    r"(?:sats|spo2|saturations?)\b[^.;]{0,40}?\b(?:after|on|with) (?:walking|exertion|exercise"
    r"|the stairs|mobilis\w+)",
    r"\bdesaturat\w+ (?:on|with) (?:exertion|walking|exercise)",
    HYPOXIA,
)
RISK_OF_NEW_HIV = any_of(
    r"\bmsm\b|\bcondomless\b|unprotected (?:sex|intercourse)|\bnew (?:sexual )?partner"
    r"|\bsex worker",
    r"\bneedle[- ]sharing|\bshared needles|\bchemsex\b",
)
SEROCONVERSION = any_of(
    r"\brash\b|flu-?like (?:illness|symptoms)|\bflu-?like\b",
    r"mouth ulcers|oral ulcers|genital ulcers",
    r"(?:swollen|enlarged) (?:lymph )?(?:nodes|glands)|lymphadenopath\w+",
    r"sore throat|pharyngitis",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "pneumocystis_pneumonia",
        "Untreated HIV (or a CD4 below 200) with a dry cough, breathlessness or oxygen that "
        "falls on walking",
        ("Pneumocystis pneumonia (PCP)", "bacterial pneumonia or tuberculosis"),
        "Exercise (walk) oximetry and arterial gas; chest X-ray (may look normal), induced "
        "sputum or bronchoscopy for PCP PCR; high-dose co-trimoxazole, with steroids if PaO2 "
        "is below 9.3 kPa; same-day HIV team.",
        ((UNTREATED_HIV, any_of(BREATHLESS, EXERTIONAL_DESATURATION, r"\bdry cough\b")),),
    ),
    RedFlagRule(
        "primary_hiv",
        "A fever with a rash, sore throat, mouth ulcers or swollen glands weeks after a "
        "sexual or needle exposure",
        ("primary HIV infection (seroconversion illness)", "secondary syphilis"),
        "HIV test now (fourth-generation antigen and antibody; repeat if negative and the "
        "exposure was recent), syphilis serology and a full sexual-health screen; refer to "
        "HIV and sexual-health services; do not call it glandular fever on a negative Monospot.",
        ((RISK_OF_NEW_HIV, any_of(FEVER, LOW_GRADE_FEVER), SEROCONVERSION),),
    ),
)

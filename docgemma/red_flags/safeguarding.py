"""Rows of the red-flag table for harm done by others: a child groomed for sexual
exploitation, an older person abused or neglected by a carer. The condition to exclude
first is the harm itself, whatever the consultation was booked for."""

from __future__ import annotations

from docgemma.red_flags.cues import OLDER_ADULT, any_of
from docgemma.red_flags.rule import RedFlagRule

YOUNG_TEEN = any_of(
    r"\b(?:1[0-7]) ?(?:-| )?(?:years?|yrs?)[- ]old|\b(?:1[0-7]) ?(?:yo|y/o)\b",
    r"\b(?:1[0-7]) ?(?:m|f)\b|\b(?:schoolgirl|schoolboy|teenager|teen)\b",
)
"""A child of 10 to 17."""
OLDER_PARTNER = any_of(
    r"\b(?:boyfriend|girlfriend|partner|man|guy)\b[^.;]{0,40}?\b(?:who'?s|who is|aged|is)"
    r" (?:19|[2-6]\d)\b",
    r"\b(?:19|[2-6]\d)(?:-year-old| ?yo)? (?:boyfriend|girlfriend|man|guy)\b",
    r"\bolder (?:boyfriend|girlfriend|man|men)\b",
)
"""A partner of 19 or more, or said to be older (a friend of 18 giving a lift is not)."""
GROOMING = any_of(
    r"(?:buys?|bought|gives?|gave|given) (?:her|him|them) (?:\w+ ){0,3}(?:gifts?|phone|vapes?"
    r"|money|alcohol|drugs|clothes)",
    r"\bstay(?:s|ed|ing)? (?:over )?(?:at|with) (?:his|her|their) (?:place|flat|house)",
    r"picks? (?:her|him|them) up from school|missing (?:from )?school|going missing",
)
CARER_CONTROL = any_of(
    r"won't leave (?:the room|her side|his side)|(?:insists on|always) (?:staying|being present)",
    r"answers? (?:every|all|each) (?:of the )?questions? for (?:her|him|them)",
    r"won't (?:let (?:her|him|them) be seen alone|leave (?:the|us) (?:room|alone))",
    r"(?:doesn't|does not|won't) let (?:us|me|staff) see (?:her|him|them) alone",
)
UNEXPLAINED_HARM = any_of(
    r"\bunexplained bruis\w+|\bfinger ?tip bruis\w+|\bbruis\w+ on the inner (?:upper )?arms",
    r"\bgrip(?:[- ]pattern)? (?:marks|bruis\w+)|bruis\w+ (?:\w+ ){0,4}(?:grip|finger[- ]?tip"
    r"|fingertip|hand) (?:pattern|marks|shaped)|bruises (?:on|to) both (?:upper )?arms",
    r"pressure (?:sore|ulcer) (?:\w+ ){0,3}(?:never|not) (?:reported|mentioned)|grade [34] "
    r"(?:sacral |heel )?pressure (?:sore|ulcer)",
    r"\b(?:lost|losing) (?:\d+ ?kg|weight)\b[^.;]{0,40}\b(?:carer|son|daughter|husband|wife)",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "child_exploitation",
        "A child with a much older boyfriend or 'friend' who gives gifts, collects them or "
        "has them stay over, or who goes missing from school or home",
        ("child sexual exploitation", "sexual abuse"),
        "Speak to the young person alone; follow the safeguarding procedure today (named or "
        "designated safeguarding lead, children's social care; police if in immediate "
        "danger); sexual health care as needed; record their words.",
        (
            (YOUNG_TEEN, OLDER_PARTNER),
            (YOUNG_TEEN, GROOMING, r"\bboyfriend|\bgirlfriend|\bolder\b|\bman\b"),
        ),
    ),
    RedFlagRule(
        "elder_abuse",
        "An older person with grip-pattern or unexplained bruises, unreported pressure sores or "
        "weight loss, and a carer who answers for them or will not leave them alone",
        ("elder abuse or neglect",),
        "See the person alone; record injuries with a body map; follow the adult "
        "safeguarding procedure today (safeguarding lead, local authority; police if a crime "
        "or immediate danger); look for a medical cause of bruising or weight loss too.",
        (
            (OLDER_ADULT, UNEXPLAINED_HARM, CARER_CONTROL),
            (OLDER_ADULT, r"\bgrip(?:[- ]pattern)? (?:marks|bruis\w+)|bruis\w+ (?:\w+ ){0,4}grip"),
        ),
    ),
)

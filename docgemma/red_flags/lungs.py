"""Rows of the red-flag table: the lungs beyond the emergency of the moment (a foreign body
inhaled while choking, and a chronic cough with weight loss, night sweats or blood), and a
swollen leg, where a clot that reaches the lungs starts.

The chronic cough row has no patient advice: for a patient it is an urgent GP visit the
triage model decides, not a rule that overrides it."""

from __future__ import annotations

from docgemma.red_flags.cues import BREATHLESS, HAEMOPTYSIS, WEIGHT_LOSS, WHEEZE, WORD, any_of
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule
from docgemma.severity import Severity

CHOKED = any_of(
    r"\bchok(?:ed|ing)\b(?! (?:up|back|sensation|feeling)\b)",
    r"(?:inhaled|aspirated|breathed in) (?:a |an |the |some |part of (?:a |the )?)?(?:\w+ ){0,2}"
    r"(?:peanuts?|nuts?|toy|coin|bead|piece|bit|lego|popcorn|grapes?|seeds?|bone|tooth|lid"
    r"|object|something|food|sweet)",
    r"went down the wrong way",
    r"(?:coughing|choking|gagging) (?:fit|episode|spell)s? (?:while|whilst|when|during|after) "
    r"(?:eating|chewing|playing with|sucking)",
)
"""A choking episode, or an object breathed in."""
AIRWAY_SIGNS = any_of(
    WHEEZE,
    BREATHLESS,
    r"\bstridor\b",
    r"(?:reduced|decreased|absent|diminished|quiet|no) (?:air entry|breath sounds)",
    r"(?:unilateral|one-sided|localised|focal|monophonic) wheez\w*|hyperinflat\w+",
    r"(?:persistent|ongoing|new|still|now|keeps?) cough\w*|(?:still|now|keeps?) coughing"
    r"|cough\w* (?:ever since|since then|persist\w+|won't settle|hasn't settled|every day)",
)
"""What a foreign body left in the airway does after the choking has settled."""
LONG_COUGH = any_of(
    r"\bcough\w*(?: \w+){0,2} (?:for|over|of) (?:(?:more than|over|at least|almost|nearly|about)"
    r" )?(?:[3-9]|1\d|three|four|five|six|seven|eight|nine|ten|several|a few|many) (?:weeks|wks"
    r"|months)",
    r"\b(?:[3-9]|[1-9]\d|three|four|five|six|seven|eight|nine|ten|several) ?(?:-| )?(?:weeks?"
    r"|wks?|months?|/12|/52)(?: \w+){0,3} (?:cough|coughing)\b",
    r"\b(?:persistent|chronic|prolonged|long-?standing|lingering) cough\b|\bcough (?:that|which)"
    r" (?:won't|hasn't|has not|will not|doesn't|isn't) (?:go|gone|shift|settle|clear|get|going)",
)
"""A cough of three weeks or more."""
NIGHT_SWEATS = any_of(
    r"\bnight sweats\b|\bsweat\w* at night\b",
    r"\b(?:drenching|soaking|drenched|soaked)\b(?: \w+){0,3} (?:sheets|bed|sweats|pyjamas"
    r"|nightclothes)\b|\b(?:sheets|bed|pyjamas) (?:are |were )?(?:soaked|drenched|wringing wet)",
)
SMOKER = r"(?<!non-)(?<!non )\b(?:ex-?)?smoker\b|\bsmokes\b|\bpack[- ]years?\b"

_SIDE = r"(?:left|right|one|lt|rt|l|r)"
_LIMB = r"(?:calf|leg|thigh|lower leg)"
_SWOLLEN = r"(?:swollen|swelling|oedema\w*|edema\w*|bigger|enlarged)"
ONE_LEG_SWOLLEN = any_of(
    rf"\b{_SIDE} {_LIMB}\b(?: (?:is|was|has been|looks|got))?(?: {WORD},?){{0,3}}? {_SWOLLEN}",
    rf"\b{_SWOLLEN},? (?:{WORD},? ){{0,3}}?{_SIDE} {_LIMB}\b",
    rf"\b{_SWOLLEN} (?:of|in) (?:the |his |her |my |their )?{_SIDE} {_LIMB}\b",
    r"\b(?:unilateral|asymmetric\w*|one-sided) (?:leg |calf )?(?:swelling|oedema|edema)\b",
    rf"\b{_LIMB} (?:{WORD} ){{0,2}}?\d(?:\.\d)? ?cm (?:bigger|larger|more|wider)\b",
)
"""One calf or leg swollen (a side named, or a difference in girth): a deep vein thrombosis
until shown otherwise, whatever else explains the redness."""

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "inhaled_foreign_body",
        "A choking episode (often while eating) followed by cough, wheeze, breathlessness or "
        "one-sided chest signs",
        (
            "inhaled foreign body (foreign body aspiration)",
            "partial airway obstruction with distal collapse or pneumonia",
        ),
        "Assess the airway now: if the cough is ineffective, the choking algorithm (back "
        "blows, then chest thrusts in an infant or abdominal thrusts over 1 year); chest X-ray "
        "(inspiratory and expiratory, or lateral decubitus in a small child) — a normal film "
        "does not exclude it; refer the same day to ENT or respiratory for bronchoscopy when "
        "the history suggests aspiration; do not treat as asthma or bronchiolitis.",
        ((CHOKED, AIRWAY_SIGNS),),
        PatientAdvice(
            "Coughing, wheezing or breathlessness after choking on food or a small object",
            "Go to A&E now: something may still be stuck in the airway. If they cannot breathe, "
            "cough or speak, call 999 and give back blows.",
        ),
    ),
    RedFlagRule(
        "cough_weight_loss",
        "A cough of three weeks or more with weight loss or night sweats, or haemoptysis with "
        "weight loss, night sweats, a chronic cough or a smoking history",
        (
            "pulmonary tuberculosis (TB)",
            "lung cancer",
            "lymphoma or another malignancy",
        ),
        "Chest X-ray today; if TB is possible, isolate (side room, mask) and send three sputum "
        "samples for acid-fast bacilli smear, culture and TB PCR, with an HIV test, and refer "
        "to the TB service; if cancer is possible (haemoptysis, smoker, weight loss), urgent "
        "suspected-cancer referral or CT chest; no more courses of antibiotics without a "
        "diagnosis.",
        (
            (LONG_COUGH, any_of(WEIGHT_LOSS, NIGHT_SWEATS)),
            (HAEMOPTYSIS, any_of(WEIGHT_LOSS, NIGHT_SWEATS, LONG_COUGH, SMOKER)),
            (NIGHT_SWEATS, WEIGHT_LOSS, r"\bcough\w*"),
        ),
    ),
    RedFlagRule(
        "one_leg_swollen",
        "One calf or leg swollen, with or without pain or redness",
        ("deep vein thrombosis", "pulmonary embolism if breathless or with chest pain"),
        "Two-level Wells score; if a DVT is likely, proximal leg vein ultrasound within 4 hours "
        "(interim anticoagulation if it is delayed); if unlikely, a D-dimer; ask about "
        "breathlessness, chest pain and haemoptysis; cellulitis does not exclude a clot.",
        ((ONE_LEG_SWOLLEN,),),
        PatientAdvice(
            "One leg or calf swollen",
            "Ask for an urgent GP appointment today or call 111: a swollen leg can be a blood "
            "clot. Call 999 if you are also short of breath or have chest pain.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
)

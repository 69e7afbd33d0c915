"""The red-flag table: symptoms that mean 999 / A&E (or a GP today) whatever the model says.

Each rule fires when every group of one of its ``triggers`` matches the patient's
words outside a negation ("no chest pain", "not breathless"). A group is a set of
lower-case regular expressions (any one may match) over text whose apostrophes are
normalised to ``'``. ``needs`` restricts a rule to certain patient details (a baby
under 3 months, pregnancy). The matching itself is in ``red_flags``; this is data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from docgemma.triage.demographics import AgeBand, Demographics
from docgemma.triage.severity import Severity


def any_of(*patterns: str) -> str:
    """One regex group matching any of ``patterns``."""
    return "|".join(patterns)


Trigger = tuple[str, ...]
"""Regex groups that must all match (un-negated) for the trigger to fire."""

POSSESSIVE = r"(my|his|her|the)"
CHEST_PAIN = any_of(
    r"chest (pain|tightness|pressure)",
    rf"(pain|tightness|pressure) in {POSSESSIVE} chest",
    r"chest (hurts|is tight|feels (tight|heavy|crushed))",
)
BREATHLESS = any_of(
    r"breathless",
    r"short(ness)? of breath",
    r"out of breath",
    r"can't (breathe|get my breath)",
    r"(struggling|difficulty|hard|trouble) (to )?breath(e|ing)",
    r"gasping",
)
FEVER = any_of(
    r"fever",
    r"high temperature",
    r"temperature of 3[89]",
    r"3[89](\.\d)? ?(c|degrees)",
    r"feels? (very )?hot",
)
YOUNG_BABY = any_of(
    r"\b([1-9]|1[0-2]) ?(-| )?weeks? old", r"newborn", r"\b(1|2|one|two) ?(-| )?months? old"
)
TUMMY_PAIN = any_of(
    r"(tummy|stomach|abdominal|belly|pelvic) (pain|ache|cramps?)",
    r"pain in (my|her) (tummy|stomach|belly|abdomen)",
)
SWOLLEN_THROAT = any_of(
    r"(throat|tongue|lips?|mouth) (is |are |feels? )?(swell(ing|ed|s)?|swollen|closing|tight)",
    r"swollen (throat|tongue|lips?)",
    rf"swelling of {POSSESSIVE} (throat|tongue|lips?)",
)
ALLERGEN = any_of(
    r"\bstung\b|\bsting\b|\bbees?\b|\bwasps?\b",
    r"peanuts?|\bnuts?\b|shellfish",
    r"after (eating|food)|allergic reaction",
)
BABY_FEVER_ADVICE = (
    "Call 999 or go to A&E now: a baby under 3 months with a temperature of 38C or more "
    "needs to be seen straight away."
)


@dataclass(frozen=True)
class RedFlagRule:
    id: str
    title: str
    """What was recognised, as shown in the reasoning panel."""
    advice: str
    """What the patient must do now, in plain words."""
    triggers: tuple[Trigger, ...]
    severity: Severity = Severity.A_AND_E
    needs: Callable[[Demographics], bool] | None = field(default=None, compare=False)


RULES: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "chest_pain_breathless",
        "Chest pain with breathlessness, sweating or pain spreading to the arm or jaw",
        "Call 999 now: chest pain with these symptoms can be a heart attack.",
        (
            (CHEST_PAIN, BREATHLESS),
            (
                CHEST_PAIN,
                any_of(
                    r"sweat(ing|y)|clammy",
                    r"(spread(ing|s)?|going|goes|radiat(es|ing)|moving) (to|into|down|up) "
                    rf"{POSSESSIVE} (left )?(arm|jaw|neck|back)",
                ),
            ),
        ),
    ),
    RedFlagRule(
        "stroke_signs",
        "Possible stroke: face drooping, arm weakness or slurred speech",
        "Call 999 now: these can be signs of a stroke, and every minute counts.",
        (
            (
                any_of(
                    r"face (is )?(drooping|droops|drooped|dropped|fallen)",
                    r"droop(ing|y) (face|mouth|smile)",
                    rf"one side of {POSSESSIVE} face",
                    r"can't (lift|raise) (my|his|her|one) arm",
                    r"(arm|leg) (suddenly )?(went )?(weak|numb)",
                    r"weak(ness)? (in|of) (one|my|his|her) (arm|side)",
                    r"slurr(ed|ing)( speech| words)?",
                    r"can't (speak|talk) properly",
                    r"speech (is )?(slurred|garbled)",
                ),
            ),
        ),
    ),
    RedFlagRule(
        "severe_bleeding",
        "Severe bleeding",
        "Call 999 now and press firmly on the wound with a clean cloth.",
        (
            (
                any_of(
                    r"(heavy|heavily|severe|severely|a lot of|lots of|uncontrolled) bleed(ing)?",
                    r"bleed(ing)? (heavily|a lot|badly)",
                    r"won't stop bleeding",
                    r"(bleeding|blood) (that )?(won't|will not|doesn't|does not) stop",
                    r"spurting blood|blood (is )?spurting",
                    r"vomit(ing|ed)? (up )?blood|throwing up blood",
                    r"losing a lot of blood",
                ),
            ),
        ),
    ),
    RedFlagRule(
        "anaphylaxis",
        "Possible anaphylaxis: a swelling throat or tongue, or breathing trouble after a sting "
        "or food",
        "Call 999 now; use an adrenaline auto-injector if one has been prescribed.",
        ((SWOLLEN_THROAT,), (ALLERGEN, any_of(BREATHLESS, r"wheez(e|ing|y)"))),
    ),
    RedFlagRule(
        "suicidal_intent",
        "Thoughts of suicide or of ending one's life",
        "Please call 999 or go to A&E now if you might act on these thoughts. You can also call "
        "Samaritans free on 116 123, any time, day or night.",
        (
            (
                any_of(
                    r"kill (myself|himself|herself)",
                    r"suicid(e|al)",
                    r"end (my|his|her) (own )?life|take (my|his|her) own life",
                    r"want to die|better off dead|don't want to (live|be alive)",
                    r"hurt(ing)? myself on purpose|self[- ]harm",
                ),
            ),
        ),
    ),
    RedFlagRule(
        "baby_fever",
        "A baby under 3 months with a high temperature",
        BABY_FEVER_ADVICE,
        ((FEVER,),),
        needs=lambda d: d.age_band is AgeBand.UNDER_3_MONTHS,
    ),
    RedFlagRule(
        "young_baby_fever",
        "A baby only weeks old with a high temperature",
        BABY_FEVER_ADVICE,
        ((YOUNG_BABY, FEVER),),
    ),
    RedFlagRule(
        "meningitis_signs",
        "Possible meningitis or sepsis: a rash that does not fade under a glass, or a stiff "
        "neck with fever",
        "Call 999 or go to A&E now: a rash that does not fade when pressed, or a stiff neck "
        "with a fever, can be meningitis or sepsis.",
        (
            (
                r"rash",
                r"(doesn't|does not|didn't|did not|won't|will not|not) fade|non[- ]blanching",
            ),
            (
                r"stiff neck|neck (is )?stiff",
                any_of(FEVER, r"headache|light hurts|dislike (of )?bright light"),
            ),
        ),
    ),
    RedFlagRule(
        "unconscious_or_seizure",
        "Unconscious, unresponsive, not breathing or having a seizure",
        "Call 999 now. If the person is not breathing, start CPR; if they are fitting, move "
        "things away from them and do not hold them down.",
        (
            (
                any_of(
                    r"unconscious|unresponsive",
                    r"won't wake( up)?|can't wake (him|her|them) up",
                    r"not breathing|stopped breathing",
                    r"seizure|convulsi(on|ng)|having a fit|had a fit|fitting|collapsed",
                ),
            ),
        ),
    ),
    RedFlagRule(
        "severe_breathing",
        "Severe difficulty breathing or blue lips",
        "Call 999 now: severe difficulty breathing needs emergency help.",
        (
            (
                any_of(
                    r"can't breathe|struggling to breathe|gasping|choking",
                    r"blue lips|lips (are |have )?(turning |going |gone |went |turned )?blue",
                ),
            ),
        ),
    ),
    RedFlagRule(
        "pregnancy_bleeding_or_severe_pain",
        "Pregnant with heavy bleeding or severe tummy pain",
        "Call 999 or go to A&E now: heavy bleeding or severe tummy pain in pregnancy must be "
        "checked straight away.",
        (
            (r"bleed(ing)?|losing blood|passing blood|blood clots",),
            (r"severe|really bad|agonising|excruciating|worst", TUMMY_PAIN),
        ),
        needs=lambda d: d.pregnant,
    ),
    RedFlagRule(
        "pregnancy_tummy_pain",
        "Tummy pain during pregnancy",
        "Contact your midwife, GP or maternity unit today: tummy pain in pregnancy should be "
        "checked.",
        ((TUMMY_PAIN,),),
        severity=Severity.URGENT_PRIMARY_CARE,
        needs=lambda d: d.pregnant,
    ),
)

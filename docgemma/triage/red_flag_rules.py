"""The red-flag table: symptoms that mean 999 / A&E (or a GP today) whatever the model says.

Each rule fires when every group of one of its ``triggers`` matches the patient's
words outside a negation ("no chest pain", "not breathless"). Patterns are lower-case
regular expressions over text whose apostrophes are normalised to ``'``. ``needs``
restricts a rule to certain patient details (a baby under 3 months, pregnancy).
The matching itself is in ``red_flags``; this module holds only the data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from docgemma.triage.demographics import AgeBand, Demographics
from docgemma.triage.severity import Severity

Trigger = tuple[str, ...]
"""Regex groups that must all match (un-negated) for the trigger to fire."""

CHEST_PAIN = (
    r"chest (pain|tightness|pressure)|(pain|tightness|pressure) in (my|his|her|the) chest"
    r"|chest (hurts|is tight|feels (tight|heavy|crushed))"
)
BREATHLESS = (
    r"breathless|short of breath|shortness of breath|out of breath|can't breathe|cannot breathe"
    r"|can't get my breath|struggling to breathe|difficulty breathing|hard to breathe"
    r"|trouble breathing|gasping"
)
FEVER = r"fever|high temperature|temperature of 3[89]|3[89](\.\d)? ?(c|degrees)|feels? (very )?hot"
YOUNG_BABY = r"\b([1-9]|1[0-2]) ?(-| )?weeks? old|newborn|\b(1|2|one|two) ?(-| )?months? old"
TUMMY_PAIN = r"(tummy|stomach|abdominal|belly|pelvic) (pain|ache|cramps?)|pain in (my|her) (tummy|stomach|belly|abdomen)"


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
                r"sweat(ing|y)|clammy|(spread(ing|s)?|going|goes|radiat(es|ing)|moving) "
                r"(to|into|down|up) (my|his|her|the) (left )?(arm|jaw|neck|back)",
            ),
        ),
    ),
    RedFlagRule(
        "stroke_signs",
        "Possible stroke: face drooping, arm weakness or slurred speech",
        "Call 999 now: these can be signs of a stroke, and every minute counts.",
        (
            (
                r"face (is )?(drooping|droops|drooped|dropped|fallen)|droop(ing|y) (face|mouth|smile)"
                r"|one side of (my|his|her|the) face|can't (lift|raise) (my|his|her|one) arm"
                r"|(arm|leg) (suddenly )?(went )?(weak|numb)|weak(ness)? (in|of) (one|my|his|her) (arm|side)"
                r"|slurr(ed|ing)( speech| words)?|can't (speak|talk) properly|speech (is )?(slurred|garbled)",
            ),
        ),
    ),
    RedFlagRule(
        "severe_bleeding",
        "Severe bleeding",
        "Call 999 now and press firmly on the wound with a clean cloth.",
        (
            (
                r"(heavy|heavily|severe|severely|a lot of|lots of|uncontrolled) bleed(ing)?"
                r"|bleed(ing)? (heavily|a lot|badly)|won't stop bleeding|(bleeding|blood) (that )?(won't|will not|doesn't|does not) stop"
                r"|spurting blood|blood (is )?spurting|vomit(ing|ed)? (up )?blood|throwing up blood|losing a lot of blood",
            ),
        ),
    ),
    RedFlagRule(
        "anaphylaxis",
        "Possible anaphylaxis: swelling of the throat or tongue, or breathing trouble after a sting or food",
        "Call 999 now; use an adrenaline auto-injector if one has been prescribed.",
        (
            (r"(throat|tongue|lips?|mouth) (is |are |feels? )?(swell(ing|ed|s)?|swollen|closing|tight)|swollen (throat|tongue|lips?)|swelling of (my|his|her|the) (throat|tongue|lips?)",),
            (
                r"\bstung\b|\bsting\b|\bbees?\b|\bwasps?\b|peanuts?|\bnuts?\b|shellfish|after (eating|food)|allergic reaction",
                BREATHLESS + r"|wheez(e|ing|y)",
            ),
        ),
    ),
    RedFlagRule(
        "suicidal_intent",
        "Thoughts of suicide or of ending one's life",
        "Please call 999 or go to A&E now if you might act on these thoughts. You can also call "
        "Samaritans free on 116 123, any time, day or night.",
        (
            (
                r"kill (myself|himself|herself)|suicid(e|al)|end (my|his|her) (own )?life"
                r"|take (my|his|her) own life|want to die|better off dead|don't want to (live|be alive)"
                r"|hurt(ing)? myself on purpose|self[- ]harm",
            ),
        ),
    ),
    RedFlagRule(
        "baby_fever",
        "A baby under 3 months with a high temperature",
        "Call 999 or go to A&E now: a baby under 3 months with a temperature of 38C or more "
        "needs to be seen straight away.",
        ((FEVER,),),
        needs=lambda d: d.age_band is AgeBand.UNDER_3_MONTHS,
    ),
    RedFlagRule(
        "young_baby_fever",
        "A baby only weeks old with a high temperature",
        "Call 999 or go to A&E now: a baby under 3 months with a temperature of 38C or more "
        "needs to be seen straight away.",
        ((YOUNG_BABY, FEVER),),
    ),
    RedFlagRule(
        "meningitis_signs",
        "Possible meningitis or sepsis: a rash that does not fade under a glass, or a stiff neck with fever",
        "Call 999 or go to A&E now: a rash that does not fade when pressed, or a stiff neck "
        "with a fever, can be meningitis or sepsis.",
        (
            (r"rash", r"(doesn't|does not|didn't|did not|won't|will not|not) fade|non[- ]blanching"),
            (r"stiff neck|neck (is )?stiff", FEVER + r"|headache|light hurts|dislike (of )?bright light"),
        ),
    ),
    RedFlagRule(
        "unconscious_or_seizure",
        "Unconscious, unresponsive, not breathing or having a seizure",
        "Call 999 now. If the person is not breathing, start CPR; if they are fitting, move "
        "things away from them and do not hold them down.",
        (
            (
                r"unconscious|unresponsive|won't wake( up)?|can't wake (him|her|them) up|not breathing"
                r"|stopped breathing|seizure|convulsi(on|ng)|having a fit|had a fit|fitting|collapsed",
            ),
        ),
    ),
    RedFlagRule(
        "severe_breathing",
        "Severe difficulty breathing or blue lips",
        "Call 999 now: severe difficulty breathing needs emergency help.",
        (
            (r"can't breathe|cannot breathe|struggling to breathe|gasping|choking|blue lips|lips (are |have )?(turning |going |gone |went |turned )?blue",),
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

"""Rows of the red-flag table: the gullet (food stuck in it, a tear after vomiting, and
swallowing that gets harder with weight loss)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    BACK_PAIN,
    CHEST_PAIN,
    FEVER,
    VOMITING,
    WEIGHT_LOSS,
    any_of,
)
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule
from docgemma.severity import Severity

FOOD_STUCK = any_of(
    r"(?:food|meat|steak|chicken|bread|a piece of \w+|a bone|fish bone|something) (?:is |got "
    r"|has got |has |was |seems |feels )?(?:stuck|lodged)",
    r"(?:stuck|lodged) in (?:my|his|her|the|their) (?:throat|gullet|o?esophagus|food ?pipe|chest)",
    r"food bolus|bolus obstruction",
)
CANT_SWALLOW = any_of(
    r"can't (?:even )?(?:swallow|get (?:anything|water|it|fluids) down|keep (?:anything|water"
    r"|fluids) down)",
    r"unable to (?:swallow|tolerate (?:fluids|secretions|saliva))|\bdrool\w*",
    r"spitting (?:out |up )?(?:saliva|spit|everything)|(?:bringing|brings|coming) (?:back )?up "
    r"(?:saliva|water|everything)|\bregurgitat\w+|\bsecretions\b",
    r"(?:absolute|total|complete) dysphagia",
)

RETCHING = any_of(
    r"\bretch\w*",
    r"(?:forceful|repeated|violent|persistent|prolonged|projectile) (?:vomiting|retching)",
    r"\bvomit\w*(?: and \w+)? (?:over and over|repeatedly|again and again|violently|forcefully"
    r"|(?:\w+ )?many times|\d+ times)",
    r"(?:after|following) (?:a bout of |an episode of |a lot of )?(?:vomiting|being sick)",
)
"""Forceful or repeated vomiting: the usual cause of a spontaneous oesophageal tear."""
SURGICAL_EMPHYSEMA = any_of(
    r"(?:surgical|subcutaneous) emphysema|\bpneumomediastinum\b|hamman'?s (?:sign|crunch)",
    r"crackl\w+ (?:\w+ ){0,2}(?:under|beneath|in) (?:the |his |her |my |their )?skin",
    r"crepitus (?:in|over|of|on|at) (?:the |his |her |my )?(?:neck|chest wall|chest"
    r"|supraclavicular)",
)
INSTRUMENTED = (
    r"(?:after|following|since) (?:an? |the |his |her |my )?(?:\w+ )?(?:endoscopy|ogd"
    r"|gastroscopy|(?:o?esophageal|stricture|balloon|pneumatic) dilatation|dilatation of (?:the |a "
    r"|his |her )?(?:o?esophag\w+|stricture)|o?esophageal stent|transo?esophageal echo\w*)"
)
"""An instrument down the gullet: the commonest cause of a perforation."""
UPPER_PAIN = any_of(
    BACK_PAIN,
    r"\bepigastri\w+|\bupper (?:abdominal|abdo|tummy|stomach|belly) (?:pain|ache)",
)
DYSPHAGIA = any_of(
    r"\bdysphagia\b|difficulty (?:in )?swallowing|(?:trouble|problems?|struggling|hard) "
    r"(?:with |to )?swallow(?:ing)?",
    r"\bfood(?:'s| is| has)? (?:been |keeps |kept )?(?:sticking|getting stuck|catching|sticks"
    r"|catches)|(?:sticking|sticks|stuck|catching|catches) (?:\w+ ){0,2}(?:halfway|on the way) "
    r"down",
    r"swallowing (?:is |has )?(?:become |been |getting |got )?(?:harder|more difficult|difficult"
    r"|worse)",
)
DYSPHAGIA_DANGER = any_of(
    WEIGHT_LOSS,
    r"\bprogressive(?:ly)?\b",
    r"(?:only|just|living on|managing) (?:\w+ ){0,2}(?:soup|liquids|fluids|soft food|puree\w*"
    r"|yoghurt)|(?:can't|unable to) (?:manage|eat|swallow) (?:solids|solid food|meat|bread)",
    r"(?:for|over|of) (?:about |nearly |over |more than )?(?:[2-9]|two|three|four|several|a few"
    r"|many) (?:weeks|months)",
    r"\bodynophagia\b|painful swallowing|\bbarrett\w*|\bheartburn\b|\breflux\b|\bgord\b"
    r"|\bgerd\b|\bha?ematemesis\b",
)
"""What makes difficulty swallowing a possible cancer: NICE refers any dysphagia urgently."""

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "food_bolus",
        "Food stuck in the gullet with inability to swallow, even saliva",
        (
            "complete oesophageal obstruction (aspiration of saliva)",
            "oesophageal perforation",
            "an underlying stricture, eosinophilic oesophagitis or cancer",
        ),
        "Nil by mouth; emergency endoscopy (within 6 hours) if the patient cannot swallow "
        "saliva, otherwise within 24 hours; chest X-ray or CT if perforation is suspected "
        "(chest pain, fever, surgical emphysema); do not push the bolus blindly; biopsies at "
        "endoscopy to find the cause.",
        ((FOOD_STUCK, CANT_SWALLOW), (r"(?:absolute|total|complete) dysphagia",)),
        PatientAdvice(
            "Food stuck in the throat or chest so that you cannot swallow, even your saliva",
            "Go to A&E now: food stuck so that you cannot swallow your own saliva needs "
            "removing within hours.",
        ),
    ),
    RedFlagRule(
        "oesophageal_rupture",
        "Chest, upper abdominal or back pain after forceful vomiting or retching, or after "
        "endoscopy; surgical emphysema of the neck or chest",
        (
            "oesophageal rupture (Boerhaave syndrome) or perforation",
            "mediastinitis",
            "aortic dissection or acute coronary syndrome (the mimics)",
        ),
        "Nil by mouth; erect chest X-ray, then CT chest with oral water-soluble contrast now "
        "(pneumomediastinum, effusion, leak); IV fluids, broad-spectrum IV antibiotics and an "
        "antifungal; urgent upper GI or thoracic surgical review; no blind nasogastric tube.",
        (
            (RETCHING, any_of(CHEST_PAIN, SURGICAL_EMPHYSEMA)),
            (RETCHING, UPPER_PAIN, r"\bsudden\w*"),
            (SURGICAL_EMPHYSEMA, any_of(VOMITING, CHEST_PAIN, DYSPHAGIA, INSTRUMENTED)),
            (INSTRUMENTED, any_of(CHEST_PAIN, FEVER, SURGICAL_EMPHYSEMA)),
        ),
        PatientAdvice(
            "Sudden severe chest pain after retching or being sick",
            "Call 999 or go to A&E now: sudden chest pain after forceful vomiting can be a "
            "tear in the food pipe.",
        ),
    ),
    RedFlagRule(
        "oesophageal_cancer",
        "Difficulty swallowing (food sticking) that is progressive, lasting weeks, or with "
        "weight loss or reflux",
        (
            "oesophageal cancer (or gastric cancer at the cardia)",
            "benign stricture (peptic, eosinophilic oesophagitis)",
            "achalasia",
        ),
        "Urgent direct-access upper GI endoscopy on the suspected-cancer pathway (within 2 "
        "weeks); same-day admission if unable to swallow fluids or dehydrated; FBC for "
        "anaemia; do not simply increase the acid suppression.",
        ((DYSPHAGIA, DYSPHAGIA_DANGER),),
        PatientAdvice(
            "Food sticking when you swallow, getting worse, or with weight loss",
            "Contact your GP surgery today for an urgent appointment: difficulty swallowing "
            "needs a camera test within two weeks — go to A&E if you cannot swallow water.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
)

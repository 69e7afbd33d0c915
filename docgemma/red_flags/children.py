"""Rows of the red-flag table: babies and children (a newborn turning yellow, a seriously
unwell baby, bowel emergencies of infancy, Kawasaki disease, unexplained injury and
swallowed batteries or magnets)."""

from __future__ import annotations

from docgemma.red_flags.cues import CHILD, JAUNDICE, VOMITING, any_of
from docgemma.red_flags.rule import Fact, PatientAdvice, RedFlagRule
from docgemma.severity import Severity

BABY = any_of(
    r"\b(?:baby|infant|newborn)\b|\bneonat\w+",
    r"\b(?:[1-9]|1[0-6]) ?(?:-| )?(?:weeks?|wks?)[- ]old|\b[1-4] ?(?:-| )?months?[- ]old",
)
FIRST_DAY = any_of(
    r"\b(?:[1-9]|1\d|2[0-3]) ?(?:-| )?(?:hours?|hrs?|h)[- ]old",
    r"first (?:24 hours|day) (?:of life|after birth)|(?:within|in) (?:the first )?24 hours of "
    r"(?:birth|life|being born)|(?:under|less than) (?:24 hours|a day|one day) old",
    r"born (?:this morning|last night|today|earlier today|(?:\d{1,2}|a few|several) hours ago)",
    r"day (?:0|zero) of life",
)
JAUNDICE_DANGER = any_of(
    r"\bfloppy\b|\blethargic\b|(?:hard|difficult) to wake|(?:very|too) sleepy",
    r"(?:not|won't|isn't|refus\w+ to|stopped) (?:feed(?:ing)?|taking (?:his |her )?(?:milk|feeds))"
    r"|poor(?:ly)? feed\w*|high[- ]pitched cry",
    r"(?:pale|white|chalky|grey|clay[- ]coloured) (?:poo|poos|stools?)"
    r"|dark (?:yellow )?(?:urine|wee)",
)
"""Signs of bilirubin toxicity, sepsis or biliary atresia in a jaundiced baby."""
RED_FEATURES = any_of(
    r"\bfloppy\b|\bhypoton(?:ia|ic)\b",
    r"(?:hard|difficult|impossible) to (?:wake|rouse)|won't (?:stay awake|wake)|\bunrousable\b",
    r"(?:weak|high[- ]pitched|continuous) (?:cry|crying|scream\w*)",
    r"\bgrunting\b(?! (?:when|while|as|during) (?:he |she |they )?(?:\w+ ){0,2}(?:poo\w*|strain\w*"
    r"|push\w*|feed\w*|sleep\w*|asleep))",
    r"chest (?:in-?drawing|recession)|(?:sucking|pulling) in (?:under|between) (?:the|his|her)"
    r" ribs|subcostal recession|head bobbing",
    r"bulging fontanelle|fontanelle (?:is )?bulging|(?:soft spot|fontanelle) (?:is )?(?:bulging"
    r"|sunken)|sunken fontanelle",
    r"(?:refus\w+|stopped|won't take|not taking) (?:all |any |his |her )?(?:feeds|milk|bottles?)"
    r"|not (?:feeding|drinking) at all|no wet nappies|(?:hasn't|has not|not) had (?:a |any )?"
    r"wet nappy",
    r"(?:skin|lips|face) (?:is |are |looks? |has |have |gone |turned )+(?:grey|ashen)",
)
"""NICE's red features in an ill child."""
EPISODIC_SCREAMING = any_of(
    r"(?:draws?|drawing|pulls?|pulling|brings?|bringing) (?:up )?(?:his |her |their )?"
    r"(?:knees|legs) (?:up )?(?:to (?:his|her|their) (?:chest|tummy))?",
    r"(?:episodes?|bouts?|spells?|attacks?) of (?:inconsolable |severe |intense |sudden )?"
    r"(?:crying|screaming|abdominal pain|tummy pain)",
    r"(?:episodic|intermittent|paroxysmal|colicky) (?:inconsolable )?(?:crying|screaming"
    r"|abdominal pain)|screams? (?:in pain )?(?:on and off|then (?:settles|goes quiet))",
)
PROJECTILE = any_of(
    r"projectile(?:ly)? (?:vomit\w*|sick)|vomit\w* (?:is |was |are )?projectile",
    r"(?:vomit|sick|milk) (?:shoots|flies|goes|went|shot|comes out) (?:right )?across the room",
    r"forceful(?:ly)? vomit\w*|vomit\w* (?:really |very )?forcefully",
)
LONG_FEVER = any_of(
    r"(?:fever|temperature|temp|febrile|pyrexi\w*)\w*(?: \w+){0,2}(?: (?:for|of|over|lasting))? "
    r"(?:(?:more than|over|at least|almost|nearly) )?(?:[5-9]|1\d|five|six|seven|eight|nine|ten)"
    r" days",
    r"(?:fever|temperature|temp|febrile|pyrexi\w*)\w*(?: \w+){0,2} (?:for|of|over|lasting) "
    r"(?:(?:more than|over|at least|almost|nearly) )?(?:a|one|two|\d) weeks?",
    r"\b(?:[5-9]|1\d|five|six|seven|eight|nine|ten) days? (?:of|with) (?:a )?(?:fever|high "
    r"temperature|temperatures?)",
    r"day (?:[5-9]|1\d) of (?:a |the |his |her )?(?:fever|illness)",
)
"""A fever of five days or more."""
KAWASAKI_SIGNS = any_of(
    r"(?:red|bloodshot|pink) eyes|\bconjunctiv\w+|eyes (?:are |look )?(?:red|bloodshot)",
    r"(?:red|cracked|dry|swollen|peeling),? (?:and )?(?:cracked |red |dry )?lips|lips (?:are "
    r"|look )?(?:red|cracked|dry and cracked)|strawberry tongue",
    r"\brash\b",
    r"swollen (?:hands|feet|fingers|toes)|(?:hands|feet|fingers|toes) (?:are |look )?(?:swollen"
    r"|peeling)|peeling (?:skin )?(?:on|of|from) (?:his |her |the |their )?(?:hands|feet|fingers"
    r"|toes)|\bdesquamat\w+",
    r"(?:swollen|enlarged) (?:lymph )?(?:glands?|nodes?) (?:in|on) (?:the |his |her )?neck"
    r"|cervical lymphadenopathy",
)
NOT_FROM_BIRTH = (
    r"(?! (?:from|after|due to|caused by|at) (?:the |a |his |her )?(?:birth|delivery|forceps"
    r"|ventouse|vaccin\w+|injections?|jabs?|heel prick|blood test|cannula))"
)
INJURY = (
    r"(?:(?:\bbruis\w+|\bfractur\w+|broken (?:arm|leg|bone|ribs?|femur|skull)|\bburns?\b"
    r"|\bscald\w*|bite marks?|torn frenulum|retinal ha?emorrhages?|\bsubdural\w*)\b"
    r"|\b(?:femur|femoral|humer\w+|skull|ribs?|tibia\w*|fibula|radius|ulna|clavicle|wrist|arm|leg"
    r"|metaphyseal|spiral) ?#)" + NOT_FROM_BIRTH
)
"""An injury that needs explaining in a baby; "#" is how clinicians write a fracture."""
NOT_MOBILE = any_of(
    r"\b(?:[1-9]|1\d|2[0-6]) ?(?:-| )?(?:weeks?|wks?)[- ]old|\b[1-6] ?(?:-| )?months?[- ]old",
    r"\b[1-6] ?(?:mo|m/o|mths?)\b(?= (?:old\b|girl|boy|baby|infant|son|daughter|male|female"
    r"|[mf]\b))",
    r"(?:not yet|isn't yet|not|can't yet|too young to) (?:be )?(?:crawling|rolling|mobile"
    r"|cruising|walking|roll|crawl)|\bnon-?mobile\b|\bpre-?mobile\b",
)
UNEXPLAINED = any_of(
    r"\bunexplained\b|no (?:clear |plausible |consistent |good )?(?:explanation|history of"
    r" (?:trauma|injury|a fall)|mechanism)",
    r"(?:story|history|explanation) (?:doesn't|does not|didn't|did not) (?:fit|match|explain)"
    r"|inconsistent (?:history|story|explanation)|delay(?:ed)? (?:in )?(?:presentation|seeking)",
    r"(?:don't|doesn't|do not|does not|didn't) know how (?:it|he|she|they) (?:happened|got)",
)
SWALLOWED = (
    r"\bswallow\w*|\bingest\w*|\bate\b|\beaten\b|\bchewed\b|put (?:\w+ ){0,3}in (?:his|her"
    r"|their|my) mouth"
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "newborn_jaundice",
        "Jaundice in the first 24 hours of life, or a jaundiced baby who is drowsy, not "
        "feeding or has pale stools",
        (
            "haemolytic disease (rhesus or ABO incompatibility, G6PD deficiency)",
            "neonatal sepsis",
            "bilirubin encephalopathy (kernicterus)",
            "biliary atresia (pale stools, dark urine)",
        ),
        "Serum bilirubin within 2 hours (not a skin meter in the first 24 hours), plotted on "
        "the gestation-specific treatment chart; blood group, direct antiglobulin test and "
        "FBC; phototherapy or exchange transfusion by the chart's thresholds; sepsis screen "
        "if unwell; conjugated bilirubin and urgent liver referral for pale stools or dark "
        "urine.",
        (
            (JAUNDICE, FIRST_DAY),
            (Fact.YOUNG_INFANT, JAUNDICE, JAUNDICE_DANGER),
            (BABY, JAUNDICE, JAUNDICE_DANGER),
        ),
        PatientAdvice(
            "A newborn turning yellow on the first day, or a yellow baby who is very sleepy, "
            "not feeding or has pale poo",
            "Call your midwife or maternity unit now, or go to A&E: yellow skin on the first "
            "day of life, or in a baby who is very sleepy or not feeding, needs a blood test "
            "within hours.",
        ),
    ),
    RedFlagRule(
        "seriously_unwell_child",
        "A baby or child who is floppy, hard to wake, grunting, has a weak or high-pitched cry, "
        "a bulging fontanelle, or is not feeding or passing urine",
        (
            "sepsis",
            "bacterial meningitis or encephalitis",
            "severe dehydration or shock",
            "hypoglycaemia",
            "raised intracranial pressure (including abusive head trauma)",
        ),
        "ABCDE with senior paediatric help now; capillary glucose; blood cultures, FBC, CRP, "
        "blood gas with lactate, urine; IV or intraosseous access and a fluid bolus for shock; "
        "IV antibiotics within the hour as for suspected sepsis or meningitis (by age, per "
        "local policy); lumbar puncture once stable.",
        ((CHILD, RED_FEATURES), (Fact.YOUNG_INFANT, RED_FEATURES)),
        PatientAdvice(
            "A baby or child who is floppy, hard to wake, grunting, has a weak or high-pitched "
            "cry, a bulging soft spot or no wet nappies",
            "Call 999 or go to A&E now: these are signs that a baby or child is seriously ill.",
        ),
    ),
    RedFlagRule(
        "intussusception",
        "An infant or toddler with episodes of inconsolable crying and drawing up the legs, "
        "with vomiting, pallor or redcurrant-jelly stools",
        ("intussusception", "malrotation with volvulus", "incarcerated inguinal hernia"),
        "IV access and fluid resuscitation; abdominal ultrasound now; paediatric surgical "
        "team; air (pneumatic) enema reduction if there is no peritonitis or perforation, "
        "otherwise surgery.",
        (
            (
                r"red[- ]?currant jelly|jelly-like (?:poo|stools?|blood)|(?:poo|stools?) "
                r"(?:like|looks? like) (?:redcurrant |red )?jelly",
            ),
            (r"sausage[- ]shaped mass",),
            (
                CHILD,
                EPISODIC_SCREAMING,
                any_of(
                    VOMITING,
                    r"\bpale\b|\bpallor\b|\blethargic\b|\bfloppy\b|\bdrowsy\b",
                    r"blood (?:in|on) (?:the |his |her |their )?(?:nappy|poo|stools?)",
                ),
            ),
        ),
        PatientAdvice(
            "A baby or toddler with bouts of screaming and pulling up the legs, with vomiting, "
            "paleness or red jelly-like poo",
            "Go to A&E now: bouts of screaming with vomiting or red, jelly-like poo can be a "
            "bowel that has folded in on itself.",
        ),
    ),
    RedFlagRule(
        "projectile_vomiting_infant",
        "Projectile vomiting in a young infant",
        (
            "pyloric stenosis (dehydration, hypochloraemic alkalosis)",
            "malrotation with volvulus (if any vomit is green)",
            "infection (urinary tract infection, meningitis)",
        ),
        "Assess dehydration; venous gas with chloride and potassium (hypochloraemic "
        "hypokalaemic metabolic alkalosis), glucose; pyloric ultrasound; IV fluids to correct "
        "dehydration and alkalosis before pyloromyotomy; paediatric surgical referral.",
        ((BABY, PROJECTILE), (Fact.YOUNG_INFANT, PROJECTILE)),
        PatientAdvice(
            "A baby with forceful (projectile) vomiting after feeds",
            "Contact your GP surgery today or call NHS 111 — go to A&E now if the baby has few "
            "wet nappies, is very sleepy, or the vomit is green.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
    RedFlagRule(
        "kawasaki_signs",
        "A child with a fever of 5 days or more and red eyes, red cracked lips, a rash, "
        "swollen or peeling hands or feet, or a swollen neck gland",
        (
            "Kawasaki disease (coronary artery aneurysms)",
            "toxic shock syndrome",
            "paediatric inflammatory multisystem syndrome (PIMS-TS / MIS-C)",
            "serious bacterial infection",
        ),
        "Same-day paediatric assessment: FBC, CRP, ESR, LFT with albumin, urinalysis; "
        "echocardiogram; IV immunoglobulin (2 g/kg) with aspirin as soon as the diagnosis is "
        "made, ideally within 10 days of the fever starting; consider incomplete Kawasaki "
        "disease when fewer features are present.",
        ((CHILD, LONG_FEVER, KAWASAKI_SIGNS),),
        PatientAdvice(
            "A child with a high temperature for 5 days or more and red eyes, red cracked "
            "lips, a rash or swollen hands or feet",
            "Contact your GP surgery today for an urgent appointment, or call NHS 111: a long "
            "fever with these signs can be Kawasaki disease, which needs treatment soon to "
            "protect the heart.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
    RedFlagRule(
        "unexplained_injury_infant",
        "A bruise or injury in a baby who is not yet mobile, or an injury in a child without a "
        "plausible explanation",
        (
            "physical abuse (non-accidental injury), including abusive head trauma",
            "occult head, abdominal or skeletal injury",
            "a bleeding disorder",
        ),
        "Full examination undressed with a documented body map, recording the history in the "
        "carer's words; same-day paediatric assessment and discussion with the safeguarding "
        "lead (referral to children's social care); skeletal survey and CT head under 1 year; "
        "FBC and clotting screen; ophthalmology for retinal haemorrhages.",
        (
            (NOT_MOBILE, INJURY),
            (
                Fact.YOUNG_INFANT,
                r"(?:\bbruis\w+|\bburns?|\bscald\w*|bite marks?|\bfractur\w+)\b" + NOT_FROM_BIRTH,
            ),
            (CHILD, INJURY, UNEXPLAINED),
        ),
        PatientAdvice(
            "A bruise or injury on a baby who cannot yet roll or crawl",
            "Take your baby to A&E today: a bruise or injury on a baby who is not yet moving "
            "about on their own always needs a doctor to check it the same day.",
        ),
    ),
    RedFlagRule(
        "swallowed_battery_or_magnets",
        "A swallowed button battery or magnets",
        (
            "button battery ingestion (oesophageal burns and perforation within hours)",
            "multiple magnets (bowel perforation or fistula)",
            "airway foreign body",
        ),
        "X-ray from the neck to the abdomen now (a button battery shows a double-ring halo); "
        "a battery in the oesophagus is removed endoscopically at once, even if the child "
        "looks well; honey (10 mL every 10 minutes) may be given on the way if over 1 year "
        "old and within 12 hours of swallowing, without delaying removal; magnets or a "
        "battery beyond the oesophagus: discuss with paediatric surgery.",
        (
            (
                r"button[- ]?(?:cell )?batter\w+|coin[- ](?:cell|batter\w+)|(?:watch|hearing aid"
                r"|remote|key ?fob|calculator|toy) batter\w+|\bbatter(?:y|ies)\b",
                SWALLOWED,
            ),
            (r"\bmagnets?\b|magnetic (?:balls|beads)", SWALLOWED),
            (
                r"batter(?:y|ies) (?:\w+ ){0,4}(?:missing|empty|gone)"
                r"|(?:missing|empty) (?:\w+ ){0,3}batter(?:y|ies)"
                r"|battery (?:compartment|cover) (?:\w+ ){0,2}(?:open|empty|off)",
                r"\bdrool\w*|\bvomit\w*|\bcough\w*|off (?:\w+ )?(?:food|solids|feeds)|won't eat"
                r"|(?:can't|won't|not) swallow\w*|\bchok\w+",
            ),
        ),
        PatientAdvice(
            "A swallowed button battery or magnet",
            "Go to A&E now (call 999 if breathing is affected): a swallowed button battery "
            "can burn through the food pipe within hours. Do not make them sick and do not "
            "wait for symptoms.",
        ),
    ),
)

"""Rows of the red-flag table: the abdomen, the ovaries, the scrotum and penis, bleeding and
ketoacidosis."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ABDO_PAIN,
    BACK_PAIN,
    CHILD,
    CONFUSED,
    DIABETES,
    FEVER,
    HYPOTENSION,
    PAIN_OUT_OF_PROPORTION,
    PRESENTS,
    SEVERE,
    SUDDEN,
    SYNCOPE,
    UPPER_GI_BLEED,
    VOMITING,
    WEIGHT_LOSS,
    WORD,
    any_of,
    taking,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule

OVARY = r"(?<!polycystic )\bovar(?:y|ies|ian)\b|\badnex\w+|\bdermoid\b"
FEMALE = any_of(
    r"\b(?:woman|women|girl|lady|female|she|her|mum|mother|wife|daughter|sister)\b",
    r"\b\d{1,2} ?(?:yo |y/o |years? old |-year-old )?f\b",
    OVARY,
    r"\bperiods?\b|\blmp\b|\bivf\b|\bovulat\w+|\biud\b",
)
ONE_SIDED_LOWER_PAIN = any_of(
    r"(?:left|right|one)[- ]sided (?:lower )?(?:abdominal|tummy|pelvic|stomach|belly|groin) pain",
    r"(?:left|right|l|r) (?:iliac fossa|lower quadrant|lower abdominal|pelvic|adnexal) "
    r"(?:pain|tenderness)|\b(?:rif|lif|rlq|llq) (?:pain|tenderness)",
    r"pain (?:low down )?(?:in|on) (?:my|her|the) (?:left|right) (?:side|lower|pelvis|groin)",
)
PAIN = r"\bpain\w*|\bache|\bhurts?\b|\bhurting\b|\bcramp\w*|\btender\w*|\bagony\b"
_STOOL = r"\b(?:poo|poos|stools?|faeces|feces|motions?|bowel movements?)\b"
TARRY_STOOL = any_of(
    r"\bmela?ena\b|\bblack,? (?:and )?tarry (?:stools?|poo|motions?)|\btarry (?:black )?"
    r"(?:stools?|poo|motions?)",
    _STOOL + r"[\w' ]{0,25}?\b(?:black\b[\w', ]{0,12}?|dark,? (?:and )?)"
    r"(?:tarry|like tar|tar-like)",
    _STOOL + r"[\w' ]{0,25}?\blike (?:black )?tar\b",
)
"""Melaena, as a clinician or a patient describes it; black stools alone may be iron."""
BLACK_STICKY_STOOL = any_of(
    r"\bblack,? (?:and )?sticky (?:stools?|poo|motions?)",
    _STOOL + r"[\w' ]{0,25}?\b(?:black\b[\w', ]{0,12}?|dark,? (?:and )?)sticky",
)
"""Melaena as patients often describe it, and also a newborn's normal first stools."""
BLACK_STOOL = (
    _STOOL + r" (?:have been|has been|are|were|is|was|turned|gone) '?(?:" + WORD + r" )?black\b"
    r"(?![\w' ]{0,25}\b(?:iron|bismuth|liquorice|licorice|blueberr\w*))"
)
"""Stools said to be black: melaena when the patient is also pale, faint or bleeding (iron and
bismuth blacken them too, and a newborn's first stools are black)."""
FIRST_STOOLS = any_of(
    r"(?<!passed )(?<!passing )\bmeconium\b(?! (?:ileus|aspiration|plug|stain\w*|liquor))",
    r"\b(?:[0-3]|one|two|three) ?(?:-| )?days?[- ]old\b|\bday (?:[0-3]|one|two|three) of life\b",
    r"\b(?:baby|newborn|neonate|infant)(?:'s)? (?:very )?first (?:poos?|stools?|nappies|nappy)\b",
)
"""A baby's first stools (meconium), black and sticky for its first two or three days as
they should be."""
BLEEDING_SIGNS = any_of(
    r"\bblood\w*|\bbleed\w*|\bpale\b|\bpallor\b|\bbruis\w+|\bpetechia\w*",
    r"\b(?:no|without|missed|declined|refused)\b (?:\w+ ){0,2}vitamin k\b"
    r"|\bvitamin k (?:was )?(?:not|never) given",
    r"\bnot (?:\w+ )?meconium\b",
)
"""What makes black, sticky stools bleeding even in a newborn's first days: blood seen, a
pale or bruised baby, no vitamin K at birth, or "not meconium"."""
YOUNG_MALE = any_of(
    r"\b(?:boy|boys|son|lad|schoolboy|young man|teenage boy)\b",
    r"\b(?:[1-9]|1\d|2[0-5]) ?(?:-| )?(?:years?|yrs?)[- ]old (?:boy|male|man|lad)\b",
    r"\b(?:1\d|2[0-5]) ?(?:yo |y/o |y )?m\b(?!\s*(?:old|ago|of|from|away|long|tall|high))",
)
"""A boy or a man up to 25: the ages testicular torsion peaks."""
LOWER_PAIN = any_of(
    r"\blower (?:abdominal|abdo|tummy|stomach|belly) (?:pain|ache|tenderness)",
    r"\b(?:groin|inguinal|iliac fossa|rif|lif|rlq|llq) (?:pain|ache|tenderness)",
    r"\b(?:tender|pain) (?:\w+ ){0,2}in the (?:rif|lif|groin|right iliac fossa|left iliac fossa)",
    r"pain (?:low down )?in (?:his|my|the) (?:groin|lower (?:tummy|abdomen|belly))"
    r"|pain low (?:down )?in (?:his|my|the) (?:tummy|belly|abdomen)",
)
RIGHT_LOWER_PAIN = any_of(
    r"\b(?:right iliac fossa|rif|rlq|right lower quadrant|right lower (?:abdominal|tummy|"
    r"stomach|belly))\b (?:pain|ache|tenderness)",
    rf"\b(?:pain|ache|tender\w*) (?:{WORD} ){{0,3}}(?:in|at|over|on) (?:the |his |her |my )?"
    r"(?:right iliac fossa|rif|rlq|right lower (?:quadrant|abdomen|tummy|side of (?:the |his "
    r"|her |my )?(?:tummy|abdomen|belly)))",
    rf"\bpain (?:that |which )?(?:has )?(?:moved|moving|migrat\w+|shifted|spread) (?:{WORD} )"
    r"{0,3}to (?:the |his |her |my )?(?:right iliac fossa|rif|rlq|lower right (?:side of the )?"
    r"(?:tummy|abdomen|belly)|right lower (?:quadrant|abdomen|tummy|belly|side\b(?! of))"
    r"|right side of (?:the |his |her |my )?(?:tummy|abdomen|belly))",
)
"""Pain low on the right of the abdomen, or pain that moved there from the middle."""
OFF_FOOD = (
    r"\banorexi\w*|\boff (?:his|her|their|my|your) food\b|\b(?:loss of|no|poor) appetite\b"
    r"|\bnause\w*|\bfeel(?:s|ing)? sick\b|\bnot eating\b"
)
THIRST = any_of(
    r"\bpolydipsi\w+|\bthirst(?:y|iness)?\b",
    r"drinking (?:loads|lots|gallons|non-?stop|constantly|all the time|(?:a lot|much"
    r"|far|way) more)",
)
POLYURIA = any_of(
    r"\bpolyuri\w+|\bnocturia\b|(?:secondary )?(?:nocturnal )?enuresis",
    r"wet(?:ting)? the bed|bed-?wetting|(?:weeing|peeing|urinating|passing urine|going to the "
    r"(?:toilet|loo)) (?:a lot|all the time|constantly|more|much more|(?:\w+ )?times a night)",
    r"(?:getting|gets|got|waking) up (?:\w+ ){0,2}(?:at night )?to (?:wee|pee|urinate|pass urine)",
)
KUSSMAUL = (
    r"\bkussmaul\b|deep (?:sighing )?breath\w*|sighing breath\w*|breathing (?:fast|deeply"
    r"|heavily)|fruity|pear ?drops|\bketon\w+"
)
DKA_SIGNS = any_of(VOMITING, ABDO_PAIN, KUSSMAUL, CONFUSED)
"""What turns the thirst, polyuria and weight loss of new diabetes into ketoacidosis."""

THROUGH_TO_BACK = (
    r"(?:through|going|radiating|goes|spreading) (?:through )?(?:in)?to (?:the |his |her |my )?back"
    r"|bores? through"
)
PANCREATITIS_CAUSE = any_of(
    r"\bbinge\b|\balcohol\w*|\bdrinking\b|\bgallstones?\b|\bercp\b|\btriglycerides?\b",
    VOMITING,
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "abdominal_pain_shock",
        "Abdominal or back pain with hypotension or collapse, or a pulsatile abdominal mass",
        (
            "ruptured abdominal aortic aneurysm",
            "ruptured ectopic pregnancy",
            "perforated viscus",
            "acute mesenteric ischaemia",
        ),
        "Resuscitate through two large-bore cannulae and crossmatch (permissive hypotension if "
        "an aneurysm is suspected); pregnancy test in women of reproductive age; bedside "
        "ultrasound of the aorta; vascular or general surgery now; CT angiography if stable.",
        (
            (any_of(ABDO_PAIN, BACK_PAIN), any_of(HYPOTENSION, SYNCOPE)),
            (r"pulsatile (?:abdominal )?mass",),
            (r"\baaa\b|aortic aneurysm", any_of(ABDO_PAIN, BACK_PAIN, SYNCOPE, HYPOTENSION)),
        ),
        PatientAdvice(
            "Tummy or back pain with fainting or collapse",
            "Call 999 now: tummy or back pain with fainting can be internal bleeding.",
        ),
    ),
    RedFlagRule(
        "peritonitis",
        "A rigid abdomen, guarding or peritonism",
        ("perforated viscus", "generalised peritonitis"),
        "Nil by mouth, IV fluids and IV antibiotics; erect chest X-ray or CT abdomen; "
        "urgent surgical review.",
        (
            (
                r"sudden\w* (?:\w+ ){0,2}(?:abdominal|abdo|epigastric|tummy|stomach) pain",
                taking(
                    r"prednisolone|prednisone|dexamethasone|steroids?|naproxen|ibuprofen"
                    r"|diclofenac|nsaids?|aspirin"
                ),
            ),
            (
                r"rigid (?:abdomen|belly|tummy|stomach)|board-?like|\bperitonism\b"
                r"|\bguarding\b|rebound tenderness|(?:abdomen|tummy|stomach|belly) (?:is |feels )?"
                r"(?:rigid|rock hard|hard as a board)",
            ),
        ),
        PatientAdvice(
            "A rock-hard, very painful tummy",
            "Go to A&E now: a hard, very painful tummy can be a burst bowel.",
        ),
    ),
    RedFlagRule(
        "mesenteric_ischaemia",
        "Abdominal pain out of proportion to the examination, or with atrial fibrillation",
        ("acute mesenteric ischaemia",),
        "Lactate and venous gas; CT angiography; urgent surgical review; IV fluids and "
        "heparin if embolic.",
        (
            (ABDO_PAIN, PAIN_OUT_OF_PROPORTION),
            (ABDO_PAIN, r"atrial fibrillation|\baf\b|\bafib\b"),
        ),
    ),
    RedFlagRule(
        "gi_bleed",
        "Haematemesis, coffee-ground vomiting or melaena",
        ("upper GI bleed (variceal bleeding or a peptic ulcer)",),
        "Two large-bore cannulae with FBC, crossmatch, clotting and urea; resuscitate "
        "(transfuse below Hb 70 g/L); Glasgow-Blatchford score; terlipressin and antibiotics "
        "if variceal; endoscopy within 24 hours, at once if unstable.",
        (
            (UPPER_GI_BLEED,),
            (TARRY_STOOL,),
            (BLACK_STICKY_STOOL, Absent(FIRST_STOOLS)),
            (BLACK_STICKY_STOOL, BLEEDING_SIGNS),
            (BLACK_STOOL, Absent(FIRST_STOOLS), any_of(BLEEDING_SIGNS, SYNCOPE, HYPOTENSION)),
        ),
        PatientAdvice(
            "Vomiting blood or passing black, sticky stools",
            "Call 999 or go to A&E now: vomiting blood or black stools can be bleeding in the gut.",
        ),
    ),
    RedFlagRule(
        "severe_bleeding",
        "Major external haemorrhage",
        ("haemorrhagic shock",),
        "Direct pressure (a tourniquet for limb bleeding that pressure does not stop); two "
        "large-bore cannulae; major haemorrhage protocol; tranexamic acid within 3 hours of "
        "injury; find and stop the source.",
        (
            (
                any_of(
                    r"(?<!normal-)(?<!normal )(?<!normal to )(?:heavy|heavily|severe|severely|a lot"
                    r" of|lots of|uncontrolled|massive|major) (?:bleed(?:ing)?|haemorrhage"
                    r"|hemorrhage)",
                    r"bleed(?:ing)? (?:heavily|a lot|badly)",
                    r"won't stop bleeding",
                    r"(?:bleeding|blood) (?:that )?(?:won't|will not|doesn't|does not) stop",
                    r"spurting blood|blood (?:is )?spurting",
                    r"losing a lot of blood",
                ),
            ),
        ),
        PatientAdvice(
            "Severe bleeding",
            "Call 999 now and press firmly on the wound with a clean cloth.",
        ),
    ),
    RedFlagRule(
        "testicular_pain",
        "Sudden testicular or scrotal pain, or acute lower abdominal or groin pain with "
        "vomiting in a boy or young man",
        ("testicular torsion", "torsion of a testicular appendage", "incarcerated inguinal hernia"),
        "Examine the testes in every boy or young man with abdominal or groin pain; immediate "
        "urology review for scrotal exploration, within 6 hours of onset; do not delay for "
        "ultrasound; analgesia.",
        (
            (
                r"\btestic\w+|\bscrot\w+|\btestes\b|\bballs\b",
                any_of(SUDDEN, SEVERE, VOMITING, r"swollen|swelling"),
            ),
            (YOUNG_MALE, LOWER_PAIN, any_of(SUDDEN, SEVERE, VOMITING)),
            (
                r"\b(?:his|my son's|the boy's) (?:private parts|privates|willy|penis)|\bpain "
                r"(?:\w+ ){0,2}down below\b(?=.{0,80}\b(?:he|his|boy|son)\b)",
                any_of(SUDDEN, SEVERE, VOMITING, r"walking (?:funny|oddly|strangely|with a limp)"),
            ),
        ),
        PatientAdvice(
            "Sudden pain in a testicle, or sudden pain low in the tummy or groin with vomiting "
            "in a boy or young man",
            "Go to A&E now: sudden pain in a testicle, groin or low in the tummy needs surgery "
            "within hours if a testicle is twisted.",
        ),
    ),
    RedFlagRule(
        "right_lower_abdominal_pain",
        "Pain in the right iliac fossa, or moving there, with anorexia, nausea, vomiting or fever",
        ("appendicitis (perforation if peritonitic)",),
        "Observations, FBC, CRP, urinalysis and a pregnancy test in women; an appendicitis "
        "risk score; nil by mouth, IV fluids and analgesia (it does not mask the signs); "
        "urgent surgical review; ultrasound or CT as the surgeon decides; IV antibiotics if "
        "perforation is suspected.",
        ((RIGHT_LOWER_PAIN, any_of(OFF_FOOD, VOMITING, FEVER)),),
        PatientAdvice(
            "Pain low on the right of the tummy with feeling sick, vomiting or a temperature",
            "Go to A&E or call 111 now: this can be appendicitis, which needs to be seen today.",
        ),
    ),
    RedFlagRule(
        "one_sided_pelvic_pain",
        "Sudden or severe one-sided lower abdominal or pelvic pain in a woman or girl, or "
        "with a known ovarian cyst",
        (
            "ruptured ectopic pregnancy",
            "ovarian torsion",
            "ruptured or haemorrhagic ovarian cyst",
            "appendicitis",
        ),
        "Pregnancy test now; observations, FBC, CRP, group and save; pelvic ultrasound with "
        "Doppler (normal blood flow does not exclude torsion); urgent gynaecology review for "
        "laparoscopy when torsion is suspected, without waiting for the scan to be "
        "conclusive.",
        (
            (OVARY, any_of(SUDDEN, SEVERE, VOMITING), PAIN),
            (FEMALE, ONE_SIDED_LOWER_PAIN, any_of(SUDDEN, SEVERE, VOMITING)),
        ),
        PatientAdvice(
            "Sudden or severe pain low down on one side of the tummy, or in an ovary",
            "Go to A&E now: sudden pain low down on one side can be a twisted ovary or a "
            "pregnancy outside the womb, which need treatment within hours.",
        ),
    ),
    RedFlagRule(
        "priapism",
        "A painful or persistent erection lasting more than 4 hours (priapism)",
        ("ischaemic (low-flow) priapism", "sickle cell disease or leukaemia as the cause"),
        "Urology now: aspiration of the corpora cavernosa (blood gas confirms ischaemia) and "
        "intracavernosal phenylephrine if ischaemic and over 4 hours; FBC and sickle screen; "
        "ask about drugs (erectile dysfunction injections or tablets, antipsychotics, "
        "trazodone, cocaine).",
        (
            (
                r"\bpriapism\b",
                any_of(
                    r"\b(?:for|lasting|over|more than) (?:\w+ )?(?:\d+|two|three|four|five|six"
                    r"|several|many) (?:hours|hrs|h)\b",
                    r"\bsickle|\bpainful\b",
                    PRESENTS,
                ),
            ),
            (
                r"(?:erection|penis|hard-?on)\b.{0,30}(?:won't|will not|hasn't|has not|doesn't"
                r"|does not|not) (?:go(?:ne)? (?:down|away)|subsid\w+|soften\w*)",
            ),
            (
                r"(?:erection|hard-?on) (?:for|lasting|that has lasted|that's lasted) "
                r"(?:over |more than )?(?:[4-9]|1\d|four|five|six|seven|eight|several) "
                r"(?:hours|hrs)",
            ),
        ),
        PatientAdvice(
            "An erection that will not go down after 4 hours",
            "Go to A&E now: an erection lasting more than 4 hours needs treatment within hours "
            "to prevent permanent damage.",
        ),
    ),
    RedFlagRule(
        "diabetic_ketoacidosis",
        "A person with diabetes who is vomiting, has abdominal pain, ketones, deep breathing "
        "or drowsiness, or thirst, polyuria (bed-wetting) or weight loss with these or in a "
        "child",
        ("diabetic ketoacidosis", "hyperosmolar hyperglycaemic state"),
        "Capillary glucose and ketones, venous gas (pH, bicarbonate, potassium); IV 0.9% "
        "saline; fixed-rate IV insulin 0.1 unit/kg/h; potassium replacement; find the "
        "precipitant.",
        (
            (
                DIABETES,
                any_of(
                    VOMITING,
                    r"\bketon\w+|kussmaul|deep (?:sighing )?breath\w*|fruity|pear ?drops",
                ),
            ),
            (DIABETES, ABDO_PAIN, any_of(SUDDEN, r"glucose|sugars? (?:is |are )?(?:high|\d\d)")),
            (
                r"\b(?:bms?|cbg|glucose|sugars?|glucometer)(?: \w+)?(?: (?:reads?|reading|says"
                r"|shows|showing)(?: as)?)?\s*:?\s*'?hi'?(?=$|[\s,.;!?)])|\b(?:bm|cbg|glucometer)"
                r" (?:reads?|reading) (?:high|above (?:its )?range|out of range)",
            ),
            (POLYURIA, any_of(THIRST, WEIGHT_LOSS), DKA_SIGNS),
            (THIRST, WEIGHT_LOSS, DKA_SIGNS),
            (KUSSMAUL, any_of(THIRST, POLYURIA)),
            (CHILD, POLYURIA, any_of(THIRST, WEIGHT_LOSS)),
            (CHILD, THIRST, WEIGHT_LOSS),
        ),
        PatientAdvice(
            "Diabetes with vomiting, ketones or deep, fast breathing, or a child who is very "
            "thirsty, weeing a lot or losing weight",
            "Go to A&E now: being sick, ketones or deep breathing with diabetes can be "
            "ketoacidosis.",
        ),
    ),
    RedFlagRule(
        "acute_pancreatitis",
        "Epigastric pain going through to the back with vomiting, after alcohol or with gallstones",
        (
            "acute pancreatitis (severe if organ failure: hypotension, hypoxia, low urine)",
            "perforated peptic ulcer",
            "ruptured abdominal aortic aneurysm or an inferior myocardial infarction",
        ),
        "Lipase or amylase, FBC, U&E, calcium, glucose, LFT, CRP, blood gas with lactate, "
        "ECG; IV fluids guided by urine output; analgesia; ultrasound for gallstones; "
        "critical care review if organs are failing.",
        ((r"epigastri\w*|upper (?:abdo\w*|tummy)", THROUGH_TO_BACK, PANCREATITIS_CAUSE),),
    ),
)

"""Rows of the red-flag table: late pregnancy, labour and the weeks after birth (the baby's
movements, the cord, bleeding after birth, postpartum psychosis and heart failure around the
birth)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    BLEEDING,
    BREATHLESS,
    HYPOTENSION,
    HYPOXIA,
    POSTPARTUM,
    SYNCOPE,
    TACHYCARDIA,
    any_of,
)
from docgemma.red_flags.rule import Fact, PatientAdvice, RedFlagRule

FETAL_MOVEMENTS_DOWN = any_of(
    r"(?:reduced|decreased|fewer|absent|diminished|no|altered|change in(?: the)?) "
    r"(?:fetal|foetal) movements?",
    r"(?:fetal|foetal) movements? (?:are |have |has )?(?:been )?(?:reduced|decreased|absent"
    r"|diminished|stopped|less|slowed)",
    r"\brfms?\b",
)
BABY_MOVING_LESS = any_of(
    r"\b(?:baby|bump)(?:'s)? (?:is |has been |has |was )?(?:moving|kicking) (?:a lot |much |far )?"
    r"less",
    r"\b(?:baby|bump) (?:isn't|is not|hasn't been|has not been|wasn't|hasn't|has not|didn't)"
    r" (?:moving|kicking|moved|kicked|move|kick)",
    r"\b(?:baby|bump) (?:has )?stopped (?:moving|kicking)|\bbaby (?:is |has been )?quieter than "
    r"usual",
    r"(?:haven't|have not|not|can't|didn't|did not|couldn't) (?:felt|feel|feeling) "
    r"(?:the |my |her )?baby (?:move|moving|kick\w*)",
    r"baby's (?:movements?|kicks?) (?:have |has |are )?(?:slowed|reduced|changed|stopped|less)",
)
HEAVY_BLEEDING = any_of(
    r"(?:heavy|heavier|heavily|sudden|gushing|pouring|severe|massive|major|a lot of|increasing)"
    r" (?:vaginal |pv )?(?:bleed\w*|blood loss|ha?emorrhage|hemorrhage)",
    r"\bbleed\w* (?:heavily|a lot)",
    r"soak(?:ing|ed|s)? (?:through )?(?:a |my |her |\w+ )?(?:pads?|sanitary|sheets?|towels?)",
    r"(?:large|big|golf ?ball|plum|fist)[- ]sized? clots|clots? (?:the size of|bigger than"
    r"|larger than)",
    r"\bpph (?:of )?\d[\d.,]* ?(?:ml|l|litres?)\b",
    r"blood loss (?:of )?(?:[5-9]\d\d|\d{4}) ?ml|\bebl (?:of )?\d{3,4}",
    r"boggy uter\w+|uterus (?:is )?(?:boggy|atonic)|uterine atony",
)
CORD_SEEN = any_of(
    r"(?:umbilical )?cord (?:is |was )?(?:visible|palpable|felt|seen|showing|presenting|hanging"
    r"|coming out|coming down|sticking out)",
    r"(?:umbilical )?cord (?:has |had )?prolapsed|prolapsed (?:umbilical )?cord",
    r"(?:see|feel|felt|saw|seen) (?:the |a )?(?:umbilical )?cord",
    r"cord (?:at|in|through) the (?:introitus|vagina|cervix)|cord (?:felt )?on (?:ve|vaginal exam)",
)
LABOUR = any_of(
    r"\blabou?r\w*|waters (?:have )?(?:broken|broke|went|gone)|\b[sa]rom\b|rupture of membranes",
    r"\bcontractions?\b|\bvagina\w*|\bve\b|vaginal exam\w*|\bintroitus\b|presenting part",
    r"\bcervix\b|cm dilated|\bbreech\b|\bctg\b|fetal bradycardi\w*|decelerations?",
)
PSYCHOSIS = any_of(
    r"hallucinat\w+|hearing (?:voices|things)|seeing things|\bparanoi\w+|\bdelusion\w*",
    r"\bpsychotic\b|\bmania\b|\bmanic\b|(?:very )?(?:strange|odd|bizarre) (?:behaviour|beliefs"
    r"|ideas|things)|\bbizarre\b",
    r"\bconfus\w+|\bdisorientat\w+|\bdelirious\b|not making sense|not herself",
    r"(?:hasn't|has not|not|haven't) slept (?:for|in) (?:days|\d+ (?:days|nights))",
    r"thoughts? (?:of|about) (?:harming|hurting|killing) (?:the|my|her) baby",
)
ORTHOPNOEA = any_of(
    r"\borthopn(?:o)?e\w*|\bparoxysmal nocturnal dyspn\w+|\bpnd\b",
    r"wak(?:es|ing|e|ed|ening) (?:up )?(?:at night )?(?:gasping|breathless|short of breath"
    r"|struggling to breathe)",
    r"(?:breathless|short of breath|can't breathe) (?:when |on )?lying (?:down|flat)",
)
"""Breathless lying flat or waking breathless at night: a failing left ventricle."""
CANT_LIE_FLAT = (
    r"can't (?:lie|lay|sleep) (?:down )?flat|(?:sleep\w*|propped) (?:up )?on (?:\d+|two|three"
    r"|four|five|several|more|extra) pillows|\bpropped up\b"
)
"""Sleeping propped up: orthopnoea when breathless, often heartburn in pregnancy when not."""
HEART_FAILURE_SIGNS = any_of(
    HYPOXIA,
    TACHYCARDIA,
    r"\bcrackles\b|\bcrepitations\b|\bcreps\b|pulmonary o?edema|raised jvp|\bjvp (?:is )?"
    r"raised|gallop rhythm|\bs3\b|third heart sound",
)

IN_LABOUR = any_of(
    r"\bin labou?r\b|\blabou?r ward\b|\bdelivery suite\b|\bsynto(?:cinon)?\b|\boxytocin infusion\b",
    r"\b(?:[4-9]|10) ?cm(?: dilated)?\b|\bfully dilated\b|\bctg\b|\bsecond stage\b",
    r"membranes (?:\w+ ){0,2}rupture\w*|waters (?:broke|have broken|went)|\barm\b|\bsrom\b",
)
"""A woman in labour or at delivery."""
SUDDEN_COLLAPSE = any_of(
    r"\bsuddenly\b[^.;]{0,40}?\b(?:gasping|breathless|agitated|collaps\w+|unresponsive|grey)",
    r"\b(?:sats|spo2)\s*(?:of |is |was |:)?\s*(?:[4-8]\d)\s*%|\bcardiac arrest\b|\bunresponsive\b",
)
BLOOD_IN_LIQUOR = (
    r"(?:liquor|waters|amniotic fluid)\b[^.;]{0,25}?\b(?:blood-?stained|bloodstained|bloody|fresh "
    r"(?:red )?blood)|\bfresh (?:red )?bleeding (?:after|at|with) (?:the )?(?:arm|rupture)"
)
FETAL_DISTRESS = any_of(
    r"\bsinusoidal\b|\bfetal bradycardia\b|prolonged decel\w*|\bbaseline (?:in the "
    r"|of )?[5-9]0s?\b",
    r"(?:ctg|fetal heart|fhr)\b[^.;]{0,40}?\b(?:[5-9]\d|bradycardi\w*|drop\w*|decel\w*)",
)
SCARRED_UTERUS = (
    r"\bvbac\b|previous (?:\w+ )?(?:caesarean|c-?section|lscs|myomectomy)|\buterine scar\b"
    r"|\bscarred uterus\b"
)
RUPTURE_SIGNS = any_of(
    FETAL_DISTRESS,
    r"pain (?:that )?(?:doesn't|does not|won't) (?:go|settle|ease) between contractions|constant "
    r"(?:severe )?pain",
    r"presenting part (?:\w+ )?higher|contractions (?:have |seem to have )?stopped|loss of station",
)
IVF = (
    r"\bivf\b|\begg collection\b|\boocyte (?:retrieval|collection)\b|\bembryo transfer\b"
    r"|ovarian stimulation|fertility (?:treatment|drugs)"
)
OHSS_SIGNS = any_of(
    r"\bbloat\w*|(?:abdo\w*|tummy|belly) (?:is )?(?:distended|swollen)|distended|girth",
    r"(?:hardly|barely|not) passing urine|\boligur\w+|short of breath|breathless",
    r"\bascites\b|dull flanks",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "reduced_fetal_movements",
        "Reduced or absent fetal movements",
        (
            "intrauterine fetal death",
            "fetal compromise (placental insufficiency, growth restriction, abruption)",
        ),
        "Same-day assessment in the maternity unit: fetal heart auscultation (ultrasound at "
        "once if it is not heard), CTG from 28 weeks, symphysis–fundal height, blood "
        "pressure and urine; ultrasound for growth and liquor volume if there are risk "
        "factors or movements stay reduced; never reassure with a handheld Doppler alone.",
        ((FETAL_MOVEMENTS_DOWN,), (Fact.PREGNANT, BABY_MOVING_LESS)),
        PatientAdvice(
            "The baby moving less than usual, or not moving, in pregnancy",
            "Call your maternity unit or midwife now — do not wait until tomorrow: a change in "
            "the baby's movements needs to be checked the same day.",
        ),
    ),
    RedFlagRule(
        "cord_prolapse",
        "The umbilical cord felt or seen below the presenting part",
        ("umbilical cord prolapse (fetal hypoxia)",),
        "Call for help and for immediate birth (category 1 caesarean unless vaginal birth is "
        "imminent and quicker); handle the cord as little as possible; relieve cord "
        "compression — push the presenting part up or fill the bladder (about 500 mL saline "
        "by catheter), knee–chest or exaggerated left lateral position; tocolysis if delivery "
        "is delayed; continuous fetal monitoring.",
        ((CORD_SEEN, LABOUR), (Fact.PREGNANT, CORD_SEEN)),
        PatientAdvice(
            "The baby's cord can be seen or felt coming out of the vagina",
            "Call 999 now and say the cord is showing; kneel with your bottom raised and head "
            "down, and do not touch or push the cord back.",
        ),
    ),
    RedFlagRule(
        "postpartum_haemorrhage",
        "Heavy vaginal bleeding, large clots or collapse after giving birth",
        (
            "postpartum haemorrhage (uterine atony, retained placenta or tissue, genital tract "
            "trauma, coagulopathy)",
            "uterine inversion or rupture",
            "endometritis with sepsis (secondary haemorrhage)",
        ),
        "Call for help (obstetric, midwifery, anaesthetic); rub up the uterus and empty the "
        "bladder; two large-bore cannulae with FBC, crossmatch, clotting and fibrinogen; "
        "oxytocin, then ergometrine (unless hypertensive), carboprost, misoprostol; IV "
        "tranexamic acid 1 g; check the placenta is complete and look for trauma; major "
        "haemorrhage protocol and theatre if bleeding continues.",
        (
            (POSTPARTUM, HEAVY_BLEEDING),
            (POSTPARTUM, BLEEDING, any_of(HYPOTENSION, SYNCOPE, TACHYCARDIA, r"\bdizz\w+")),
        ),
        PatientAdvice(
            "Heavy bleeding or large clots after giving birth",
            "Call 999 now: heavy bleeding after having a baby needs emergency treatment. Lie "
            "down with your legs raised while you wait.",
        ),
    ),
    RedFlagRule(
        "postpartum_psychosis",
        "Confusion, hallucinations, delusions, mania or thoughts of harming the baby in the "
        "weeks after birth",
        (
            "postpartum psychosis (risk of suicide and of harm to the baby)",
            "organic causes: sepsis, pre-eclampsia or eclampsia, thyroid disease, drugs",
        ),
        "Same-day emergency psychiatric assessment; do not leave the mother alone with the "
        "baby; assess the risk of suicide and of harm to the baby; exclude organic causes "
        "(infection, pre-eclampsia, thyroid, drugs and alcohol); admission, ideally to a "
        "mother-and-baby unit.",
        ((POSTPARTUM, PSYCHOSIS),),
        PatientAdvice(
            "Confusion, seeing or hearing things, or very strange behaviour after having a baby",
            "Call 999 or go to A&E now, and do not leave her alone: these can be signs of "
            "postpartum psychosis, a medical emergency that needs treatment the same day.",
        ),
    ),
    RedFlagRule(
        "peripartum_heart_failure",
        "Breathlessness lying flat or at night, or breathlessness with hypoxia, tachycardia or "
        "crackles, late in pregnancy or in the months after birth",
        (
            "peripartum cardiomyopathy (heart failure)",
            "pulmonary embolism",
            "pre-eclampsia with pulmonary oedema",
            "myocardial infarction (including spontaneous coronary artery dissection)",
        ),
        "ECG, BNP or NT-proBNP, troponin, chest X-ray and an urgent echocardiogram; CT "
        "pulmonary angiogram or V/Q scan if PE is possible, anticoagulating while waiting; "
        "blood pressure and urine protein; oxygen and a diuretic for pulmonary oedema; "
        "cardiology and obstetric (maternal medicine) review now.",
        (
            (POSTPARTUM, ORTHOPNOEA),
            (Fact.PREGNANT, ORTHOPNOEA),
            (POSTPARTUM, CANT_LIE_FLAT, BREATHLESS),
            (Fact.PREGNANT, CANT_LIE_FLAT, BREATHLESS),
            (POSTPARTUM, BREATHLESS, HEART_FAILURE_SIGNS),
            (Fact.PREGNANT, BREATHLESS, HEART_FAILURE_SIGNS),
        ),
        PatientAdvice(
            "Breathless lying flat, waking up breathless, or very breathless late in pregnancy "
            "or after having a baby",
            "Go to A&E now (call 999 if it is severe): this can be a weak heart muscle or a "
            "blood clot in the lungs, which happen around pregnancy.",
        ),
    ),
    RedFlagRule(
        "amniotic_fluid_embolism",
        "Sudden collapse, breathlessness, hypoxia or agitation in labour or just after birth, "
        "often with bleeding that will not clot",
        (
            "amniotic fluid embolism (with disseminated intravascular coagulation)",
            "pulmonary embolism",
            "haemorrhage or uterine rupture",
            "local anaesthetic toxicity or a high block",
        ),
        "Call the obstetric emergency team; ABCDE, high-flow oxygen, CPR with left uterine "
        "displacement and perimortem caesarean section within 4-5 minutes of arrest; major "
        "haemorrhage protocol with early fibrinogen and blood products; intensive care.",
        ((IN_LABOUR, SUDDEN_COLLAPSE), (POSTPARTUM, SUDDEN_COLLAPSE, r"\bminutes?\b|\bjust\b")),
    ),
    RedFlagRule(
        "vasa_praevia",
        "Fresh bleeding when the membranes rupture, with the baby's heart rate dropping or a "
        "sinusoidal trace",
        ("vasa praevia (fetal blood loss)", "placental abruption"),
        "Emergency caesarean section (category 1); neonatal team for resuscitation and "
        "transfusion of the baby.",
        ((BLOOD_IN_LIQUOR, FETAL_DISTRESS),),
    ),
    RedFlagRule(
        "uterine_rupture",
        "In labour with a uterine scar (VBAC): pain that does not go between contractions, a "
        "fetal heart that drops, contractions that stop or a presenting part that rises",
        ("uterine rupture",),
        "Call the obstetric emergency team; stop oxytocin; category 1 caesarean section; major "
        "haemorrhage protocol.",
        ((SCARRED_UTERUS, IN_LABOUR, RUPTURE_SIGNS),),
    ),
    RedFlagRule(
        "ovarian_hyperstimulation",
        "Bloating, a swelling abdomen, little urine or breathlessness after IVF or ovarian "
        "stimulation",
        (
            "ovarian hyperstimulation syndrome (thrombosis, kidney injury, effusions)",
            "ovarian torsion",
        ),
        "Contact the fertility unit and admit if moderate or severe: FBC (haematocrit), U&E, "
        "liver tests, ultrasound for ascites; fluid balance; thromboprophylaxis; no pelvic "
        "examination.",
        ((IVF, OHSS_SIGNS),),
    ),
)

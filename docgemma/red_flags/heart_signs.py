"""Rows of the red-flag table: a heart in danger that shows itself only sideways (an ECG after
the pain has gone, indigestion with a sweat, a slow pulse, a troponin after a cold, a heart
squeezed by fluid)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    BREATHLESS,
    CHEST_PAIN,
    DIABETES,
    FEVER,
    HEART_RATE,
    HYPOTENSION,
    LONG_AGO,
    OLDER_ADULT,
    SEIZURE,
    SWEATING,
    SYNCOPE,
    TACHYCARDIA,
    WORD,
    any_of,
    taking,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule

VERY_SLOW_PULSE = any_of(
    HEART_RATE + r"(?:[12]\d|3\d)(?!\.?\d)(?!\s*(?:%|mins?|minutes|years))",
    r"\bbradycardi\w* (?:at|of|in the) (?:[12]\d|3\d)|" + HEART_RATE + r"in the (?:20|30)s",
)
"""A heart rate under 40 a minute."""
SLOW_PULSE = (
    HEART_RATE + r"(?:[12]\d|[34]\d)(?!\.?\d)(?!\s*(?:%|mins?|minutes|years))|\bbradycardi\w*"
)
"""A heart rate under 50 a minute, or a bradycardia named."""
HEART_BLOCK = (
    r"complete heart block|(?:third|3rd)[- ]degree (?:av |heart )?block|\bchb\b|complete av block"
)
DISSOCIATED_P_WAVES = (
    r"\bav dissociation|p waves? (?:\w+ ){0,4}(?:unrelated|independent|dissociated|marching)"
)
DIZZY_OR_FAINT = any_of(SYNCOPE, r"\bdizz\w+|light-?headed\w*|near(?:ly)?[- ]faint\w*|presyncop\w*")
WELLENS = any_of(
    r"\bwellens'?s?\b",
    r"(?:deep|symmetric\w*|biphasic)(?: \w+){0,2} (?:t[- ]?waves? inver\w+|twi)(?: \w+){0,3} "
    r"(?:in )?(?:leads? )?v[1-4]",
    r"biphasic t[- ]?waves?(?: \w+){0,3} (?:in )?(?:leads? )?v[1-4]",
)
"""Deep or biphasic T waves in V2–V3: a critical narrowing of the left anterior descending
artery, about to close."""
ANTERIOR_TWI = r"(?:t[- ]?waves? inver\w+|twi)(?: \w+){0,3} (?:in )?(?:leads? )?v[23]\b"
"""T-wave inversion in V2–V3: Wellens's sign after chest pain, but also a right heart strained
by a pulmonary embolus."""
RECENT_CHEST_PAIN = any_of(
    CHEST_PAIN,
    r"pain[- ]free|\bangina\b|chest tightness",
    r"(?:pain|tightness) (?:has )?(?:settled|resolved|gone)",
)
EPIGASTRIC = r"epigastri\w* (?:pain|discomfort|ache|burning|tightness|heaviness)"
INDIGESTION = r"\bindigestion\b|\bheartburn\b"
UNWELL_WITH_IT = any_of(
    SWEATING, BREATHLESS, r"\bnause\w+|\bvomit\w*|\bclammy\b|\bgrey\b|\bpale\b|\bfaint\w*"
)
EXERTIONAL_ACHE = (
    r"(?:(?:jaw|arm|throat|neck|chest) (?:ache|pain|discomfort|tightness|heaviness)"
    r"|(?:ache|pain|discomfort|tightness|heaviness) in (?:\w+ ){0,2}(?:jaw|arm|throat|neck"
    r"|chest))(?: \w+){0,4} (?:when|whenever|on|with) (?:(?:she|he|i|they) )?"
    r"(?:walks?|walking|exertion|climbing|(?:goes|going) up|hurr\w+)"
)
"""An ache in the jaw, arm or throat that walking brings on: angina, wherever it is felt."""
JAW_OR_ARM_ACHE = (
    r"\b(?:jaw|arm) (?:ache|aching|pain|discomfort|heaviness)|\b(?:ache|aches|aching|pain"
    r"|discomfort|heaviness) (?:in|into|down) (?:\w+ ){0,3}(?:jaw|arm|arms)\b"
    r"|\b(?:ache|aches|aching|pain|discomfort|heaviness) across (?:\w+ ){0,3}jaw\b"
)
"""Pain where the heart's pain radiates, felt there alone."""
NO_CHEST_PAIN = r"\b(?:no|denies|without) (?:\w+ ){0,2}chest pain"
"""Chest pain denied: in an older person with diabetes, a heart attack may bring none."""
GREY = r"\b(?:grey|gray|ashen|pale)\b"
OFF_LEGS = r"off (?:his|her|their) legs"
VIRAL_ILLNESS = any_of(
    r"flu-?like (?:illness|symptoms)|viral (?:illness|infection|uri|urti)|\bcoryzal?\b",
    r"(?:a |recent )?(?:cold|flu|covid|sore throat|d&v|gastroenteritis|chest infection)"
    r"(?: \w+){0,2} (?:last week|ago|recently)",
)
RAISED_TROPONIN = any_of(
    r"\btrop(?:onin)?(?: [it])?\s*(?:of|is|was|:|=)?\s*(?:[1-9]\d{2,})(?!\.?\d)",
    r"(?:raised|elevated|positive|rising) (?:\w+ )?trop\w*|trop\w* (?:is |was )?(?:raised"
    r"|elevated|high|positive|rising)",
)
"""A troponin above the usual cut-off (values in ng/L), or said to be raised."""
RAISED_JVP = any_of(
    r"(?:raised|elevated|high|distended) (?:jvp|jugular venous pressure|neck veins)",
    r"\bjvp (?:is |was )?(?:raised|elevated|up|high|distended|(?:[5-9]|1\d) ?cm)",
)
QUIET_HEART = (
    r"(?:muffled|quiet|soft|distant|faint) heart sounds|heart sounds (?:are |were )?"
    rf"(?:{WORD} )?(?:muffled|quiet|soft|distant|faint)"
)
BROAD_COMPLEX = any_of(
    r"\b(?:broad|wide)[- ]complex(?:es)?\b|\b(?:broad|wide) qrs\b",
    r"\bqrs\s*(?:duration\s*)?(?:of|is|was|:|=)?\s*(?:1[2-9]\d|[2-3]\d\d) ?ms\b|\bqrs\s*(?:of|is"
    r"|was|:|=)?\s*0\.(?:1[2-9]|[2-3]\d) ?s(?:ec\w*)?\b",
    r"\b(?:negative|positive) concordance|\bcapture beats|\bfusion beats|\bav dissociation",
)
"""A broad QRS (120 ms or more, or a sign of ventricular origin) on the ECG."""
FAST_RHYTHM = any_of(
    TACHYCARDIA,
    HEART_RATE + r"(?:1[2-9]\d|2\d\d)(?!\.?\d)",
    r"\b(?:heart|pulse) (?:is )?racing|\btachy\b|\b(?:at|rate(?: of)?) (?:1[2-9]\d|2\d\d)\b",
)
"""A heart rate of 120 or more (palpitations alone are a symptom, not a rate)."""
VT_NAMED = (
    r"\b(?:monomorphic |sustained |pulsed? )?vt\b|ventricular tachycardia|\bwct\b|(?:wide"
    r"|broad)[- ]complex tachy\w*"
)
LONG_QT = any_of(
    r"\bqtc?\s*(?:interval\s*)?(?:of|is|was|:|=|now)?\s*(?:5\d\d|6\d\d|7\d\d) ?(?:ms|msec)?\b"
    r"|\bqtc?\s*(?:of|is|was|:|=|now)?\s*0\.[5-7]\d* ?s(?:ec\w*)?\b",
    r"\b(?:long|prolonged|very long) qtc?\b|\bqtc? (?:is |was )?(?:very )?(?:long|prolonged)",
)
"""A QT interval of 500 ms or more, or said to be long."""
QT_DRUG = (
    r"\b(?:clarithromycin|erythromycin|azithromycin|citalopram|escitalopram|ondansetron|methadone"
    r"|haloperidol|amiodarone|sotalol|quinine|domperidone|levofloxacin|moxifloxacin)\b"
)
"""Drugs that lengthen the QT interval, commonly met together."""
FUNNY_TURNS = any_of(
    SYNCOPE,
    r"\bfunny turns?\b|\bdrop attacks?\b|\b(?:brief|short) (?:episodes?|spells?) of "
    r"(?:unresponsiveness|collapse)|\bout for (?:a few|several|\d+) seconds",
    SEIZURE,
    r"\bpalpitations?\b|\btorsades?\b|\bpolymorphic vt\b",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "broad_complex_tachycardia",
        "A fast regular rhythm with broad QRS complexes (120 ms or more)",
        (
            "ventricular tachycardia (treat a broad-complex tachycardia as VT until shown "
            "otherwise)",
            "hyperkalaemia or sodium-channel blocker poisoning",
        ),
        "Check for a pulse and adverse features (shock, syncope, ischaemia, heart failure): "
        "synchronised DC cardioversion if present; if stable, amiodarone 300 mg IV over 20-60 "
        "minutes; potassium and magnesium; no adenosine or verapamil for an irregular or "
        "uncertain broad-complex rhythm; cardiology now.",
        ((BROAD_COMPLEX, FAST_RHYTHM), (VT_NAMED, FAST_RHYTHM)),
        PatientAdvice(
            "A racing heartbeat with feeling faint, chest pain or breathlessness",
            "Call 999 now: a very fast heartbeat with these symptoms can be a dangerous rhythm.",
        ),
    ),
    RedFlagRule(
        "long_qt_syncope",
        "Fainting, funny turns, seizure-like episodes or palpitations with a QTc of 500 ms or more",
        (
            "torsades de pointes (polymorphic ventricular tachycardia from a long QT)",
            "the cause: QT-prolonging drugs, low potassium or magnesium, congenital long QT",
        ),
        "Cardiac monitoring now; IV magnesium sulfate 2 g; correct potassium to 4.5-5.0 "
        "mmol/L; stop every QT-prolonging drug; cardiology for pacing or isoprenaline if it "
        "recurs.",
        (
            (LONG_QT, FUNNY_TURNS),
            (
                QT_DRUG,
                r"\bpalpitations?\b",
                any_of(
                    SYNCOPE,
                    r"\bfunny turns?\b|(?:nearly|almost) (?:blacking|blacked|passing|passed) out",
                ),
            ),
        ),
    ),
    RedFlagRule(
        "wellens_pattern",
        "Deep or biphasic T-wave inversion in V2–V3, often once the chest pain has settled",
        (
            "acute coronary syndrome (critical proximal left anterior descending stenosis)",
            "pulmonary embolism (right heart strain)",
        ),
        "Treat as an acute coronary syndrome: serial ECGs and troponin, antiplatelet and "
        "anticoagulant therapy per protocol, cardiology for early angiography; no exercise "
        "stress test, which can provoke the infarct.",
        ((WELLENS,), (ANTERIOR_TWI, RECENT_CHEST_PAIN)),
    ),
    RedFlagRule(
        "atypical_acs",
        "Epigastric pain or indigestion with sweating, or in a person with diabetes; an ache in "
        "the jaw, arm or throat brought on by walking or with sweating; an older person sweaty "
        "and grey, faint or breathless; breathlessness without chest pain in an older person "
        "with diabetes",
        ("acute coronary syndrome (atypical presentation)",),
        "12-lead ECG within 10 minutes and a troponin (repeated per the local pathway) before "
        "putting it down to the stomach; aspirin if an acute coronary syndrome is likely.",
        (
            (any_of(EPIGASTRIC, INDIGESTION), SWEATING),
            (EPIGASTRIC, DIABETES, UNWELL_WITH_IT),
            (EXERTIONAL_ACHE,),
            (JAW_OR_ARM_ACHE, SWEATING),
            (OLDER_ADULT, SWEATING, any_of(GREY, SYNCOPE, BREATHLESS, OFF_LEGS)),
            (OLDER_ADULT, DIABETES, BREATHLESS, NO_CHEST_PAIN),
        ),
        PatientAdvice(
            "Indigestion-like pain with sweating, or in someone with diabetes",
            "Call 999 now: pain like indigestion with sweating can be a heart attack, "
            "especially with diabetes.",
        ),
    ),
    RedFlagRule(
        "slow_heart",
        "A heart rate under 40, or a slow pulse with collapse or dizziness; complete heart "
        "block on the ECG",
        (
            "complete heart block",
            "drug toxicity (beta-blocker, calcium-channel blocker, digoxin)",
            "hyperkalaemia",
            "inferior myocardial infarction",
            "hypothermia, hypothyroidism or raised intracranial pressure",
        ),
        "Cardiac monitoring and a 12-lead ECG; atropine 500 micrograms IV if compromised, "
        "then pacing (transcutaneous, then temporary wire); potassium and digoxin level; "
        "stop rate-slowing drugs; cardiology today.",
        (
            (VERY_SLOW_PULSE,),
            (SLOW_PULSE, DIZZY_OR_FAINT),
            (DISSOCIATED_P_WAVES, Absent(TACHYCARDIA)),
            (HEART_BLOCK, any_of(SLOW_PULSE, DIZZY_OR_FAINT)),
        ),
        PatientAdvice(
            "A very slow pulse with fainting or dizziness",
            "Call 999 now: a very slow heartbeat with fainting can be a blocked heart rhythm.",
        ),
    ),
    RedFlagRule(
        "myocarditis",
        "Chest pain, breathlessness or palpitations with a raised troponin after a viral illness",
        (
            "myocarditis or myopericarditis (arrhythmia, heart failure; clozapine-induced in its "
            "first weeks)",
            "acute coronary syndrome",
        ),
        "Admit with cardiac monitoring; serial ECGs and troponin; echocardiogram; no NSAIDs "
        "or exertion until assessed; cardiology review (cardiac MRI, angiography if an "
        "infarct is possible).",
        (
            (VIRAL_ILLNESS, RAISED_TROPONIN),
            (
                taking(r"clozapine|clozaril"),
                any_of(FEVER, VIRAL_ILLNESS),
                FAST_RHYTHM,
                Absent(LONG_AGO),
                Absent(r"\bfor (?:many |several |\d+ )?years\b"),
            ),
        ),
    ),
    RedFlagRule(
        "cardiac_tamponade",
        "Hypotension with a raised JVP or muffled heart sounds; electrical alternans or pulsus "
        "paradoxus; a pericardial effusion with breathlessness or hypotension",
        ("cardiac tamponade", "tension pneumothorax", "massive pulmonary embolism"),
        "Bedside echocardiogram now; senior and cardiology help for pericardiocentesis; IV "
        "fluid while it is arranged; no diuretics or vasodilators.",
        (
            (RAISED_JVP, HYPOTENSION),
            (QUIET_HEART, any_of(HYPOTENSION, RAISED_JVP)),
            (r"electrical alternans|alternating (?:qrs|complex)\w*|pulsus paradoxus",),
            (r"pericardial effusion", any_of(HYPOTENSION, BREATHLESS, TACHYCARDIA)),
        ),
    ),
)

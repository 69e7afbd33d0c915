"""Rows of the red-flag table: a heart in danger that shows itself only sideways (an ECG after
the pain has gone, indigestion with a sweat, a slow pulse, a troponin after a cold, a heart
squeezed by fluid)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    BREATHLESS,
    DIABETES,
    HYPOTENSION,
    SWEATING,
    SYNCOPE,
    TACHYCARDIA,
    any_of,
)
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule

RATE = r"\b(?:hr|heart rate|pulse(?: rate)?|rate|ventricular rate)\s*(?:of|is|was|at|:|=|only)?\s*"
VERY_SLOW_PULSE = RATE + r"(?:[12]\d|3\d)(?!\.?\d)(?!\s*(?:%|mins?|minutes|years))"
"""A heart rate under 40 a minute."""
SLOW_PULSE = RATE + r"(?:[12]\d|[34]\d)(?!\.?\d)(?!\s*(?:%|mins?|minutes|years))|\bbradycardi\w*"
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
    r"(?:t[- ]?waves? inver\w+|twi)(?: \w+){0,3} (?:in )?(?:leads? )?v[23]\b",
    r"biphasic t[- ]?waves?(?: \w+){0,3} (?:in )?(?:leads? )?v[1-4]",
)
"""Deep or biphasic T waves in V2–V3 after chest pain: a critical narrowing of the left anterior
descending artery, about to close."""
EPIGASTRIC = (
    r"epigastri\w* (?:pain|discomfort|ache|burning|tightness|heaviness)|\bindigestion\b"
    r"|\bheartburn\b"
)
EXERTIONAL_ACHE = (
    r"(?:(?:jaw|arm|throat|neck|shoulder|chest) (?:ache|pain|discomfort|tightness|heaviness)"
    r"|(?:ache|pain|discomfort|tightness|heaviness) in (?:\w+ ){0,2}(?:jaw|arm|throat|neck"
    r"|shoulder|chest))(?: \w+){0,4} (?:when|whenever|on|with) (?:(?:she|he|i|they) )?"
    r"(?:walks?|walking|exertion|climbing|exercis\w+|hurr\w+)"
)
"""An ache in the jaw, arm or throat that walking brings on: angina, wherever it is felt."""
VIRAL_ILLNESS = any_of(
    r"flu-?like (?:illness|symptoms)|viral (?:illness|infection|uri|urti)|\bcoryzal?\b",
    r"(?:a |recent )?(?:cold|flu|covid|sore throat|d&v|gastroenteritis|chest infection)"
    r"(?: \w+){0,2} (?:last week|ago|recently)",
)
RAISED_TROPONIN = any_of(
    r"\btrop(?:onin)?(?: [it])?\s*(?:of|is|was|:|=)?\s*(?:[1-9]\d{2,})(?!\.?\d)",
    r"(?:raised|elevated|high|positive|rising) (?:\w+ )?trop\w*|trop\w* (?:is |was )?(?:raised"
    r"|elevated|high|positive|rising)",
)
"""A troponin above the usual cut-off (values in ng/L), or said to be raised."""
RAISED_JVP = any_of(
    r"(?:raised|elevated|high|distended) (?:jvp|jugular venous pressure|neck veins)",
    r"\bjvp (?:is |was )?(?:raised|elevated|up|high|distended|\d+ ?cm)",
)
QUIET_HEART = (
    r"(?:muffled|quiet|soft|distant|faint) heart sounds|heart sounds (?:are |were )?(?:\w+ )?"
    r"(?:muffled|quiet|soft|distant|faint)"
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "wellens_pattern",
        "Deep or biphasic T-wave inversion in V2–V3, often once the chest pain has settled",
        ("acute coronary syndrome (critical proximal left anterior descending stenosis)",),
        "Treat as an acute coronary syndrome: serial ECGs and troponin, antiplatelet and "
        "anticoagulant therapy per protocol, cardiology for early angiography; no exercise "
        "stress test, which can provoke the infarct.",
        ((WELLENS,),),
    ),
    RedFlagRule(
        "atypical_acs",
        "Epigastric pain or indigestion with sweating, or in a person with diabetes; an ache in "
        "the jaw, arm or throat brought on by walking",
        ("acute coronary syndrome (atypical presentation)",),
        "12-lead ECG within 10 minutes and a troponin (repeated per the local pathway) before "
        "putting it down to the stomach; aspirin if an acute coronary syndrome is likely.",
        ((EPIGASTRIC, SWEATING), (EPIGASTRIC, DIABETES), (EXERTIONAL_ACHE,)),
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
        ),
        "Cardiac monitoring and a 12-lead ECG; atropine 500 micrograms IV if compromised, "
        "then pacing (transcutaneous, then temporary wire); potassium and digoxin level; "
        "stop rate-slowing drugs; cardiology today.",
        (
            (VERY_SLOW_PULSE,),
            (SLOW_PULSE, DIZZY_OR_FAINT),
            (DISSOCIATED_P_WAVES,),
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
        ("myocarditis or myopericarditis (arrhythmia, heart failure)", "acute coronary syndrome"),
        "Admit with cardiac monitoring; serial ECGs and troponin; echocardiogram; no NSAIDs "
        "or exertion until assessed; cardiology review (cardiac MRI, angiography if an "
        "infarct is possible).",
        ((VIRAL_ILLNESS, RAISED_TROPONIN),),
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

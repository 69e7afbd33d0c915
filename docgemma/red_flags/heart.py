"""Rows of the red-flag table: the heart itself (ST elevation on the ECG, an infarct the ECG
shows only as ST depression in V1–V3, and fainting that comes from the heart)."""

from __future__ import annotations

from docgemma.red_flags.cues import CHEST_PAIN, SWEATING, SYNCOPE, any_of
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule

LEADS_V1_3 = r"v[1-3](?:\s*(?:[-–—]|to|through|and|,)\s*v?[2-4])?\b"
ANTERIOR_ST_DEPRESSION = any_of(
    r"\bst[- ]?(?:segment )?depression[\w\s.,()–-]{0,30}?\b(?:v[1-3]\b|(?:the )?anterior (?:chest "
    r"|precordial )?leads|right (?:chest|precordial) leads)",
    rf"\b{LEADS_V1_3}:? (?:shows? |with |has )?(?:\w+ ){{0,3}}st[- ]?(?:segment )?depression",
    r"\banterior st[- ]?(?:segment )?depression",
)
"""ST depression in V1–V3: the mirror image of a posterior ST elevation."""
DOMINANT_R = any_of(
    r"\b(?:dominant|tall|prominent|broad) r(?:[- ]?waves?)?(?: \w+){0,2} (?:in )?(?:leads? )?"
    r"v[12]\b",
    r"\br/s (?:ratio )?(?:>|above|greater than|more than|over) ?1 in v[12]\b",
)
UPRIGHT_T = r"\bupright t[- ]?waves?(?: \w+){0,2} (?:in )?v[1-3]\b"
POSTERIOR_ELEVATION = (
    r"\bst[- ]?(?:segment )?elevation (?:\w+ ){0,3}(?:in )?(?:v[7-9]\b|(?:the )?posterior leads)"
)
ST_ELEVATION = any_of(
    r"\bst[- ]?(?:segment )?elevation\b(?! (?:\w+ ){0,3}(?:in )?(?:v[7-9]\b|(?:the )?posterior))",
    r"\bste(?:mi)? (?:in|on) (?:leads? )?(?:ii|iii|avf|v[1-6]|i\b|avl|the (?:inferior|anterior"
    r"|lateral|septal))",
    r"\bst (?:segments? )?(?:is |are )?(?:elevated|raised|up)\b",
    r"\b(?:inferior|anterior|lateral|septal|infero-?lateral|antero-?lateral) leads? (?:look |"
    r"looks |are |is )?(?:up|raised|elevated)\b|\btombstones?\b",
)
NEW_LBBB = r"\bnew (?:lbbb|left bundle branch block)"
"""ST elevation as the ECG is described (not the word "STEMI" in a question)."""
UNCHANGED_ECG = any_of(
    r"\b(?:st (?:segments?|elevation|changes?)|ecg|tracing|the changes) (?:is |are |was |were )?"
    r"(?:identical|unchanged) (?:to|from)",
    r"\bidentical to (?:an? |his |her |their |the )?(?:old|previous|prior|earlier|baseline)? ?ecg",
)
"""The ST segment or the whole tracing unchanged from an earlier ECG: not an acute change."""
ISCHAEMIA = any_of(
    CHEST_PAIN, SWEATING, r"\btrop(?:onin)?s?\b|\bnstemi\b|\bacs\b|acute coronary syndrome"
)
COLLAPSE = any_of(
    SYNCOPE,
    r"\b(?:he|she|they|i|who|player|footballer|runner|athlete|\d+ ?[mf]\b[\w ]{0,25}?) "
    r"(?:suddenly )?(?:went|goes|going) down (?:suddenly |mid-?\w+|during|while|whilst|in the "
    r"middle of|on the (?:pitch|court|field|track))",
    r"\bdropped to the (?:floor|ground)\b|\bkeeled over\b|\b(?:lost|loss of) consciousness\b",
    r"\bout cold\b|\bout for (?:about |around |a few |~)?(?:\d+|a few|several|ten|twenty|thirty)"
    r" ?(?:seconds|secs|s)\b",
)
"""A transient loss of consciousness, as a clinician or a bystander says it."""
EXERTION = any_of(
    r"\bexerti\w+|\bexercis\w+|\brunning\b(?! (?:a |an )?(?:high |raised |low )?(?:temp\w*"
    r"|fever|nose))|\bsprint\w*|\bmid-?(?:sprint|race|match|game|run)\b",
    r"\bsports?\b|\bplaying (?:football|rugby|sport|tennis|basketball|hockey|netball|squash)",
    r"\b(?:football|rugby|basketball|hockey|netball|squash|tennis|athletics|swimming)"
    r" (?:match|game|training|practice|session|lesson)|\bfootballer\b|\bathlete\b|\bat the gym\b",
    r"\bpe (?:lesson|class)|cross[- ]country|\brace\b|climbing (?:the )?stairs",
)
RELATIVE = (
    r"\b(?:father|mother|dad|mum|brother|sister|uncle|aunt|cousin|sibling|relative|son|daughter)"
)
YOUNG_AGE = (
    r"(?:(?:at|aged?|age) (?:[1-9]|[1-4]\d)\b|\byoung\b|in (?:his|her|their) (?:teens|twenties"
    r"|thirties|forties|[2-4]0s))"
)
FAMILY_SUDDEN_DEATH = any_of(
    r"family history of (?:\w+ ){0,3}(?:sudden (?:cardiac |unexplained )?death|cardiomyopathy"
    r"|hocm|hcm|long qt|brugada)",
    RELATIVE
    + r"\b(?: \w+){0,3} (?:died (?:suddenly|unexpectedly)|dropped dead|collapsed and died|died in"
    r" (?:his|her|their) sleep|died (?:while|whilst|during) (?:\w+ ){0,2}(?:running|playing"
    r"|swimming|exercising|sport|a race|a match))(?: \w+){0,4}? " + YOUNG_AGE,
    r"\b(?:sudden|unexplained) (?:cardiac )?death (?:of|in) (?:a |his |her |their )?(?:young )?"
    r"(?:relative|family member|father|mother|brother|sister|uncle|aunt|cousin|sibling)",
)
"""A relative's sudden death young: an inherited cardiomyopathy or channelopathy."""
DYNAMIC_MURMUR = (
    r"\bmurmur(?: \w+){0,4} (?:louder|increas\w+|intensif\w+|accentuated) (?:on|with|when|during)"
    r" (?:\w+ ){0,2}(?:stand\w*|valsalva|squat\w* to stand)"
)
"""A murmur louder on standing or Valsalva: dynamic outflow obstruction (HOCM)."""

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "st_elevation",
        "ST elevation on the ECG, or a new left bundle branch block",
        (
            "ST-elevation myocardial infarction (STEMI)",
            "aortic dissection involving a coronary artery",
            "pericarditis or early repolarisation (the mimics)",
        ),
        "Activate the primary PCI pathway now (thrombolysis if PCI cannot be done within "
        "120 minutes); aspirin 300 mg and a second antiplatelet per protocol, unless a "
        "dissection is suspected (tearing pain, a pulse or pressure difference: image "
        "first, no antiplatelet or thrombolysis); right-sided "
        "leads (V4R) in an inferior STEMI, and no nitrates if the right ventricle is involved "
        "or the blood pressure is low; cardiology now.",
        ((ST_ELEVATION, Absent(UNCHANGED_ECG)), (NEW_LBBB,)),
        PatientAdvice(
            "Changes on a heart tracing (ECG) that suggest a heart attack",
            "Call 999 now: this tracing can be a heart attack.",
        ),
    ),
    RedFlagRule(
        "posterior_mi",
        "ST depression in V1–V3 (with a dominant R wave or upright T waves) in a patient with "
        "chest pain, or ST elevation in the posterior leads",
        (
            "posterior myocardial infarction (posterior STEMI equivalent: circumflex or right "
            "coronary artery occlusion)",
        ),
        "Record posterior leads V7–V9 now (ST elevation of 0.5 mm or more confirms it) and "
        "treat as STEMI: immediate discussion with the primary PCI centre for emergency "
        "angiography; aspirin and antiplatelet therapy per the STEMI protocol; do not wait for "
        "the troponin.",
        (
            (ANTERIOR_ST_DEPRESSION, any_of(ISCHAEMIA, DOMINANT_R, UPRIGHT_T)),
            (DOMINANT_R, ANTERIOR_ST_DEPRESSION),
            (POSTERIOR_ELEVATION,),
        ),
    ),
    RedFlagRule(
        "exertional_syncope",
        "Syncope on exertion, with palpitations, chest pain or a murmur, or with a family "
        "history of sudden cardiac death; a murmur louder on standing",
        (
            "ventricular arrhythmia or heart block",
            "aortic stenosis or hypertrophic cardiomyopathy",
            "inherited arrhythmia (long QT, Brugada syndrome, pre-excitation)",
            "pulmonary embolism",
        ),
        "12-lead ECG (QTc, pre-excitation, Brugada pattern, heart block, left ventricular "
        "hypertrophy) and cardiac monitoring; echocardiogram; no competitive sport or driving "
        "until assessed; cardiology review before discharge.",
        (
            (COLLAPSE, EXERTION),
            (SYNCOPE, r"palpitations?|heart (?:racing|pounding)"),
            (SYNCOPE, CHEST_PAIN),
            (COLLAPSE, any_of(FAMILY_SUDDEN_DEATH, r"\bmurmur\b")),
            (DYNAMIC_MURMUR,),
        ),
        PatientAdvice(
            "Fainting during exercise, with a racing heart or chest pain, or when a relative "
            "died suddenly young",
            "Go to A&E now: fainting during exercise or with a racing heart can come from the "
            "heart's rhythm.",
        ),
    ),
)

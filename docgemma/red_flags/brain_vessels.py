"""Rows of the red-flag table: the brain's vessels and pressure when the story looks benign
(vertigo that is a stroke, a droopy eyelid after neck pain, a headache that is pressure, a
muddle that is blood collecting slowly after falls)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ALCOHOL_EXCESS,
    ANTICOAGULANT,
    CONFUSED,
    HEADACHE,
    VISION_LOSS,
    VOMITING,
    WORD,
    any_of,
)
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule

VERTIGO = r"\bvertig\w+|(?:room|world|everything) (?:is |was )?(?:spinning|spins|spun)"
CENTRAL_SIGNS = any_of(
    r"(?:can't|unable to|not able to) (?:stand|walk|sit up)\b(?! (?:it|this|that|the))"
    r"|can't (?:stand|walk) (?:\w+ )?(?:unaided|unsupported|without help)",
    r"direction[- ]changing nystagmus|nystagmus (?:\w+ ){0,3}chang\w* direction"
    r"|vertical nystagmus|skew deviation",
    r"(?:normal|negative) head[- ]impulse|head[- ]impulse (?:test )?(?:is |was )?(?:normal"
    r"|negative)",
    r"\bataxi\w+|\bdysarthri\w+|slurred speech|\bdiplopia\b|double vision",
)
"""Signs that put a vertigo in the brainstem or cerebellum, not the inner ear (a normal head
impulse test in a patient with continuous vertigo is one of them)."""
PTOSIS = rf"\bptosis\b|(?:eye)?lid (?:is |looks )?(?:{WORD} )?droop\w*|droop\w* (?:eye)?lid"
SMALL_PUPIL = (
    rf"\bmiosis\b|\bmiotic\b|pupil (?:is |looks )?(?:{WORD} )?(?:smaller|small|constricted)"
    r"|(?:smaller|small|constricted) (?:(?:left|right|l|r) )?pupil"
)
NECK_MANIPULATION = (
    r"chiropract\w+(?: \w+){0,4} neck|neck '?(?:cracked|manipulated|clicked)'?|(?:manipulat\w+"
    r"|crack\w*) (?:of )?(?:his |her |my |the )?neck"
)
NECK_PAIN = r"neck (?:pain|ache)|pain in (?:\w+ ){0,2}neck|\bneck (?:\w+ ){0,2}hurts"
PAPILLOEDEMA = r"papill?o?edema|swollen (?:optic )?dis[ck]s?|blurred (?:optic )?dis[ck] margins"
POSITIONAL_HEADACHE = (
    r"worse (?:when |on )?(?:lying (?:down|flat)|in the mornings?|on waking|first thing"
    r"|(?:on |when )?(?:coughing|bending|straining|sneezing))"
)
FALLS = r"\bfalls\b|\b(?:a|several|few|recent|repeated) falls?\b|\bfell\b|\bfallen\b"
SLOW_DECLINE = any_of(
    CONFUSED,
    r"\bmuddled\b|sleeping more|\bunsteady\b|\bheadaches?\b|not (?:himself|herself)"
    r"|personality change|more forgetful",
)
SLOW_ONSET = (
    r"over (?:the )?(?:last|past) (?:few |\d+ |two |three |four |several )?(?:days|weeks)"
    r"|\b(?:\d+|few|several|two|three) weeks\b"
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "central_vertigo",
        "Acute vertigo with inability to stand or walk, direction-changing or vertical "
        "nystagmus, a normal head impulse test, or other brainstem signs",
        (
            "posterior circulation stroke (cerebellar or brainstem)",
            "cerebellar haemorrhage",
            "vertebral artery dissection",
        ),
        "Examine gait and HINTS (head impulse, nystagmus, test of skew) in full; urgent MRI "
        "with diffusion-weighted imaging (CT misses most posterior strokes) and the stroke "
        "pathway if within the thrombolysis window; no discharge on a diagnosis of "
        "labyrinthitis until a central cause is excluded.",
        ((VERTIGO, CENTRAL_SIGNS),),
        PatientAdvice(
            "Sudden spinning dizziness with being unable to walk, slurred speech or double vision",
            "Call 999 now: sudden dizziness with these signs can be a stroke.",
        ),
    ),
    RedFlagRule(
        "cervical_artery_dissection",
        "A drooping eyelid with a small pupil (Horner syndrome), or neck pain or headache after "
        "neck manipulation or injury",
        ("cervical artery dissection (carotid or vertebral)", "stroke"),
        "CT or MR angiography of the neck vessels today; full neurological examination; "
        "antithrombotic treatment once bleeding is excluded; stroke team advice.",
        (
            (PTOSIS, SMALL_PUPIL),
            (r"horner'?s?\b", any_of(NECK_PAIN, HEADACHE, NECK_MANIPULATION)),
            (NECK_MANIPULATION, any_of(NECK_PAIN, HEADACHE)),
        ),
    ),
    RedFlagRule(
        "raised_intracranial_pressure",
        "Headache with papilloedema, or worse lying down or on waking with vomiting or blurred "
        "vision",
        (
            "cerebral venous sinus thrombosis",
            "space-occupying lesion (tumour or brain abscess)",
            "idiopathic intracranial hypertension",
        ),
        "Same-day imaging: CT or MRI with venography; examine the fundi and visual fields; "
        "lumbar puncture only once a mass lesion is excluded; neurology advice.",
        (
            (HEADACHE, PAPILLOEDEMA),
            (
                HEADACHE,
                POSITIONAL_HEADACHE,
                any_of(
                    VOMITING,
                    VISION_LOSS,
                    r"pulsatile tinnitus|whooshing (?:noise|sound)|(?:noise|sound) in time with "
                    r"(?:her|his|their|my) (?:pulse|heartbeat)",
                ),
            ),
        ),
        PatientAdvice(
            "A headache that is worse lying down or in the morning, with vomiting or blurred sight",
            "Get medical help today (A&E or an urgent GP appointment): this kind of headache "
            "can mean raised pressure in the head.",
        ),
    ),
    RedFlagRule(
        "chronic_subdural",
        "Confusion, drowsiness, unsteadiness or headache developing over days to weeks after "
        "falls, in a heavy drinker or on anticoagulation",
        ("chronic subdural haematoma",),
        "CT head today; check clotting and reverse anticoagulation if there is a haematoma; "
        "neurosurgical advice; do not label it dementia before the scan.",
        (
            (FALLS, SLOW_DECLINE, any_of(ANTICOAGULANT, ALCOHOL_EXCESS, SLOW_ONSET)),
            (ANTICOAGULANT, SLOW_DECLINE, SLOW_ONSET),
        ),
    ),
)

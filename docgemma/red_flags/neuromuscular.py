"""Rows of the red-flag table: weakness of the nerves and muscles that can reach the
breathing muscles (ascending weakness, myasthenic crisis)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    BREATHLESS,
    any_of,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule

LEGS_WEAK = any_of(
    r"(?:both|his|her|my|the|their) legs (?:are |have |feel |feels |have been |keep |went )?"
    r"(?:got |gone |getting |becoming |going |been )?(?:weak\w*|heavy|floppy|like jelly"
    r"|giving way)",
    r"weak(?:ness)? (?:in|of) (?:both|his|her|my|the|their) legs|\bparaparesis\b",
    r"bilateral (?:leg|lower limb) weakness|(?:leg|lower limb) weakness",
    r"\blegs\b[\w ,]{0,25}\b(?:getting|going|becoming|gone|got|grown) weak\w*",
)
ARMS_TOO = r"(?:and|now|also) (?:in )?(?:his |her |my |the |their |both )?(?:arms|hands)\b"
AREFLEXIA = (
    r"\bareflexi\w*|(?:absent|lost) (?:ankle |knee |tendon |deep tendon )?reflexes"
    r"|reflexes (?:are )?(?:absent|lost)|(?:can't|cannot|couldn't|unable to) (?:elicit|get|find)"
    r" (?:\w+ ){0,3}reflexes|reflexes (?:\w+ ){0,2}(?:unobtainable|not elicited)"
)
AFTER_AN_INFECTION = (
    r"(?:after|following|since) (?:a |an )?(?:bout of |episode of )?(?:diarrh\w+|gastroenteritis"
    r"|food poisoning|campylobacter|viral illness|chest infection|flu\b|d ?& ?v|d and v)"
)
"""A gut or chest infection in the weeks before: what Guillain-Barré syndrome often follows."""
LONG_STANDING = (
    r"\bfor (?:\d+|a few|several|many|some) (?:years|months)\b|\bchronic\b|\blong[- ]standing\b"
    r"|\bsince \d{4}\b"
)
"""A neuropathy of months or years (a diabetic's), not one of days."""
MYASTHENIA = any_of(
    r"\bmyasthen\w+|lambert[- ]eaton|\b(?:known|ocular|generali[sz]ed) mg\b",
    r"\bpyridostigmine\b|\bmestinon\b",
)
"""Myasthenia, named or known by its treatment."""
BULBAR = any_of(
    r"(?:difficulty|trouble|problems?|struggling) (?:with )?(?:swallowing|to swallow)"
    r"|can't swallow|\bdysphagia\b|choking|\baspirat\w+",
    r"weak (?:cough|voice)|(?:voice|speech) (?:is )?(?:weak|fading|nasal)|nasal (?:voice|speech)"
    r"|\bdysarthri\w+|slurred|coughing on (?:fluids|drinks|food|eating|drinking)",
    r"can't (?:hold|lift) (?:my|his|her|their) head (?:up|off)|head drop",
    r"\b(?:fvc|vital capacity)\b",
)


SUDDEN_LIMB_WEAKNESS = any_of(
    r"woke (?:up )?(?:\w+ ){0,3}(?:unable to|can't|couldn't) move (?:his |her |their |my )?(?:legs"
    r"|arms"
    r"|limbs)",
    r"(?:sudden|suddenly) (?:\w+ ){0,2}(?:weak|unable to (?:move|stand|walk))",
)
PARALYSIS_TRIGGER = any_of(
    r"(?:big|large|heavy) (?:\w+ ){0,3}(?:meal|carbohydrate|carbs|takeaway)|\bbinge\b",
    r"similar (?:\w+ )?(?:episodes?|attacks?)|happened before|previous (?:\w+ )?episodes?",
    r"\bthyrotox\w+|\bhyperthyroid\w*|fine tremor|lost (?:\d+ ?kg|weight) without trying",
)
DESCENDING_PALSY = any_of(
    r"\bdouble vision\b|\bdiplopia\b|\bptosis\b|droopy (?:eye)?lids?",
    r"(?:can't|unable to|difficulty|trouble) (?:\w+ )?swallow\w*|\bdysphagi\w+|slurred|croaky",
)
WOUND_PORTAL = any_of(
    r"\bthorn\b|\bnail\b|puncture wound|\bcut\b|\bgraze\b|\bbite\b|\bsplinter\b|\bwound\b",
    r"\bskin[- ]?pop\w*|inject\w* (?:\w+ ){0,2}(?:heroin|drugs)|\babscess\b",
)
LOCKJAW = any_of(
    r"\btrismus\b|\blockjaw\b|(?:can't|unable to|cannot) open (?:his |her |their |my )?mouth",
    r"jaw(?:'s| is| has been)? (?:\w+ ){0,2}stiff|stiff jaw",
)
HIGH_CORD_INJURY = any_of(
    r"\b(?:tetraplegi\w+|quadriplegi\w+)\b|\bknown (?:\w+ )?paraplegi\w+",
    r"spinal (?:cord )?injury\b[^.;]{0,30}?\b(?:c[1-8]|t[1-6])\b|\b(?:c[1-8]|t[1-6])\b[^.;]{0,15}?"
    r"spinal (?:cord )?injury",
)
"""A spinal cord injury at or above T6: the level where autonomic dysreflexia happens."""
DYSREFLEXIA_SIGNS = any_of(
    r"pounding headache|\bflush\w*|sweat\w* above|blocked (?:catheter|nose)|catheter (?:\w+ ){0,3}"
    r"(?:empty|blocked|kinked)",
    r"\b(?:bp|blood pressure)\b[^.;]{0,20}?\b(?:1[6-9]\d|2\d\d)\s*/",
)
BACLOFEN_PUMP = r"(?:intrathecal )?baclofen pump|\bitb pump\b|intrathecal baclofen"

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "ascending_weakness",
        "Rapidly progressive or ascending weakness of both legs, with tingling, lost reflexes "
        "or spread to the arms",
        (
            "Guillain-Barré syndrome (respiratory failure, autonomic instability)",
            "spinal cord compression or transverse myelitis",
            "myasthenic crisis or botulism",
            "severe hypokalaemia",
        ),
        "Forced vital capacity (or single-breath count) and bulbar function now and repeated "
        "— ICU review if the vital capacity falls towards 20 mL/kg; reflexes and a sensory "
        "level; urgent MRI spine if there is a sensory level or sphincter disturbance; "
        "potassium; cardiac monitoring for autonomic instability; neurology the same day, "
        "with IV immunoglobulin if Guillain-Barré syndrome is confirmed or likely.",
        (
            (
                r"ascending (?:weakness|paralysis|numbness|paraesthesia|tingling|sensory)"
                r"|(?:weakness|numbness|tingling|paralysis) (?:is |has been )?(?:ascending"
                r"|spreading up|moving up|creeping up|going up|travelling up)",
            ),
            (
                LEGS_WEAK,
                any_of(
                    AREFLEXIA,
                    ARMS_TOO,
                    r"\btingl\w*|pins and needles|paraesthesi\w+",
                    AFTER_AN_INFECTION,
                    r"getting worse|worsening|progressive|progressing|each day",
                ),
            ),
            (AREFLEXIA, AFTER_AN_INFECTION),
            (AREFLEXIA, r"\btingl\w*|pins and needles|paraesthesi\w+", Absent(LONG_STANDING)),
            (AREFLEXIA, r"\bweak\w*"),
        ),
        PatientAdvice(
            "Weakness in both legs that is getting worse or spreading up the body",
            "Go to A&E now: weakness in both legs that is getting worse or spreading upwards "
            "can affect breathing within hours or days.",
        ),
    ),
    RedFlagRule(
        "myasthenic_crisis",
        "Myasthenia with breathlessness, difficulty swallowing or a weak cough or voice",
        (
            "myasthenic crisis (respiratory failure)",
            "aspiration pneumonia",
            "cholinergic crisis (excess pyridostigmine)",
        ),
        "Forced vital capacity (SpO2 falls late) and single-breath count, repeated; nil by "
        "mouth if swallowing is unsafe; ICU review if the vital capacity is below 20 mL/kg "
        "or falling; neurology now; find and remove the trigger (infection; drugs such as "
        "aminoglycosides, fluoroquinolones, magnesium, beta-blockers); IV immunoglobulin or "
        "plasma exchange.",
        ((MYASTHENIA, any_of(BREATHLESS, BULBAR)),),
        PatientAdvice(
            "Myasthenia with trouble breathing or swallowing",
            "Call 999 or go to A&E now: with myasthenia, trouble breathing or swallowing can be "
            "a crisis that affects the breathing muscles.",
        ),
    ),
    RedFlagRule(
        "periodic_paralysis",
        "Sudden weakness of the limbs on waking or after a big meal, alcohol or exercise, with "
        "earlier episodes or signs of an overactive thyroid",
        (
            "hypokalaemic periodic paralysis (thyrotoxic, with a very low potassium)",
            "Guillain-Barré syndrome",
            "spinal cord compression",
        ),
        "Potassium and an ECG now; oral (or cautious IV) potassium, watching for a rebound "
        "high; thyroid function; a non-selective beta-blocker in the thyrotoxic form.",
        ((SUDDEN_LIMB_WEAKNESS, PARALYSIS_TRIGGER),),
    ),
    RedFlagRule(
        "botulism",
        "Double vision, drooping eyelids, trouble swallowing or a weak voice, then weak limbs, "
        "with a wound or in someone who injects drugs",
        ("botulism (wound or foodborne)", "myasthenic crisis", "Miller Fisher or Guillain-Barré"),
        "Admit for monitoring of vital capacity; antitoxin on suspicion (through the health "
        "protection service); wound debridement and antibiotics for wound botulism; notify.",
        (
            (
                DESCENDING_PALSY,
                WOUND_PORTAL,
                r"\b(?:heroin|inject\w*|skin[- ]?pop\w*|wound|abscess)\b",
            ),
        ),
    ),
    RedFlagRule(
        "tetanus",
        "A stiff jaw or trouble opening the mouth, with neck or back stiffness or spasms, days "
        "after a wound",
        ("tetanus",),
        "Admit (intensive care if spasms); human tetanus immunoglobulin, wound debridement, "
        "metronidazole; benzodiazepines for spasms; check and complete immunisation.",
        ((LOCKJAW, WOUND_PORTAL),),
    ),
    RedFlagRule(
        "autonomic_dysreflexia",
        "A spinal cord injury at T6 or above with a pounding headache, flushing or sweating "
        "above the injury, or a blood pressure far above the usual",
        ("autonomic dysreflexia (risk of stroke and seizures)",),
        "Sit the patient up and loosen clothing; find and remove the trigger (blocked catheter "
        "first, then constipation, pressure, ingrown toenail); if the systolic stays above 150 "
        "mmHg, a fast-acting antihypertensive (e.g. GTN or nifedipine); monitor every 2-5 "
        "minutes.",
        ((HIGH_CORD_INJURY, DYSREFLEXIA_SIGNS),),
    ),
    RedFlagRule(
        "baclofen_withdrawal",
        "An intrathecal baclofen pump with an alarm, a refill missed, itching, rising spasticity, "
        "fever or agitation",
        ("intrathecal baclofen withdrawal (rhabdomyolysis, multi-organ failure)", "sepsis"),
        "Emergency referral to the team that manages the pump; oral baclofen at once (it only "
        "partly replaces the pump); benzodiazepines; cooling; CK, U&E; check the pump and "
        "catheter.",
        (
            (
                BACLOFEN_PUMP,
                r"\balarm\w*|\bitch\w*|\bspasm\w*|\bstiff\w*|\bfever\w*|\bagitat\w+|refill",
            ),
        ),
    ),
)

"""Rows of the red-flag table: weakness of the nerves and muscles that can reach the
breathing muscles (ascending weakness, myasthenic crisis)."""

from __future__ import annotations

from docgemma.red_flags.cues import BREATHLESS, any_of
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule

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
    r"|reflexes (?:are )?(?:absent|lost)"
)
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
                    r"(?:after|following|since) (?:a |an )?(?:bout of |episode of )?"
                    r"(?:diarrh\w+|gastroenteritis|food poisoning|campylobacter|viral illness"
                    r"|chest infection|flu)",
                    r"getting worse|worsening|progressive|progressing|each day",
                ),
            ),
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
)

"""Rows of the red-flag table that follow a procedure: an anaesthetic (malignant
hyperthermia, local anaesthetic toxicity), a needle in the spine (a haematoma pressing on
the cord) and a blood transfusion (a reaction to the unit)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ANTICOAGULANT,
    BACK_PAIN,
    BREATHLESS,
    FEVER,
    HYPOTENSION,
    HYPOXIA,
    any_of,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule

GENERAL_ANAESTHETIC = any_of(
    r"\b(?:sevo\w*|desflurane|isoflurane|halothane|volatile|suxamethonium|\bsux\b"
    r"|succinylcholine|scoline)\b",
    r"\b(?:under|during|after induction of) (?:a )?(?:general )?an(?:a)?esthe\w+|\bintra-?op\w*"
    r"|\bin theatre\b|\bon the table\b|\bin recovery\b|\bpacu\b|\bafter (?:a |the )?ga\b",
)
RISING_CO2_OR_HEAT = any_of(
    r"\b(?:et ?co2|end[- ]tidal (?:co2|carbon dioxide)|capnograph\w*)\b[^.;]{0,40}?"
    r"\b(?:ris\w+|climb\w*|increas\w+|going up|went up|up from|doubl\w+|high|->|→)",
    r"\bhypercarbi\w+|\bhypercapni\w+",
    r"\bmasseter (?:spasm|rigidity|was tight|tight)|\bjaw (?:was )?(?:rigid|tight|clenched) "
    r"(?:at|on|after) (?:intubation|induction)",
    r"\b(?:temp\w*|temperature) (?:\w+ ){0,3}(?:climbing|rising|increasing)|soda ?lime (?:is )?"
    r"(?:hot|warm)",
    r"\b(?:temp\w*|t)\s*(?:of|is|was|:)?\s*(?:39\.[5-9]|4[0-2](?:\.\d)?)\b[^.;]{0,30}?\brigid\w*",
)
"""Signs of a hypermetabolic muscle crisis under anaesthesia."""
LA_DRUG = (
    r"(?:levo)?bupivacaine|lidocaine|lignocaine|ropivacaine|\bropi\b|prilocaine|marcaine|chirocaine"
    r"|local an(?:a)?esthetic"
)
LOCAL_ANAESTHETIC = any_of(
    r"\b(?:after|following|during|injected|infiltrat\w+|gave|given|with)\b[^.;]{0,30}?\b(?:"
    + LA_DRUG
    + r")|\b\d+ ?(?:ml|mls|mg) (?:of )?(?:\d(?:\.\d+)? ?% )?(?:"
    + LA_DRUG
    + r")|\b(?:"
    + LA_DRUG
    + r")\b[^.;]{0,15}?\b(?:infiltrat\w+|injection|injected|block)",
    r"\b(?:nerve|regional|interscalene|femoral|fascia iliaca|brachial plexus|erector spinae|esp"
    r"|paravertebral|tap|supraclavicular|axillary|serratus|pecs) block",
)
"""A local anaesthetic injected or a block done, not a drug named in a question."""
LAST_SIGNS = any_of(
    r"perioral (?:tingling|numbness)|(?:tingling|numb\w*) (?:round|around) (?:the |his |her )?"
    r"mouth|metallic taste|\btinnitus\b|\blips? (?:tingling|numb)|\bears? ringing|ringing in "
    r"(?:the |his |her )?ears",
    r"\b(?:had|having|has had) a (?:seizure|fit)\b|\bseiz(?:ed|ing)\b|\bfitted\b|\bfitting\b"
    r"|\bconvuls\w+",
    r"\btwitch\w*|\bunresponsive\b|\bunconscious\b|cardiac arrest|\bvf\b|\bvt\b|wide qrs|broad qrs",
)
NEURAXIAL = any_of(
    r"\bepidural\b|\bspinal (?:an(?:a)?esthetic|block|injection)|\bneuraxial\b|\bintrathecal\b",
    r"\blumbar puncture\b|\b(?:an |the )?lp\b",
)
LEGS_FAILING = any_of(
    r"can't (?:move|lift|feel) (?:\w+ ){0,2}legs?|(?:legs|leg) (?:are |is |feel |have "
    r"|has )?(?:gone )?(?:weak|numb|heavy|dead)|weakness (?:of|in) (?:both |his |her )?legs",
    r"numb (?:from|below) (?:the |his |her )?(?:belly ?button|umbilicus|waist|nipples|chest)",
    r"\bparaplegi\w+|\bparaparesis\b|sensory level",
)
TRANSFUSION = any_of(
    r"\b(?:during|into|mid|through|after|following|since|within \w+ (?:hours?|minutes?|mins?) "
    r"of) (?:a |the |her |his |their |this )?(?:blood |platelet |red cell |first )?transfusion"
    r"|\btransfusion (?:was |is )?(?:started|running|going|in progress)"
    r"|\bunit of (?:red cells|blood|platelets|ffp|plasma|rbc)",
    r"\b(?:got|received|given|had|after|during|into|transfused|with)\b[^.;]{0,15}?\b(?:\d|one|two"
    r"|three) (?:units? of )?(?:ffp|fresh frozen plasma|platelets|(?:packed )?red cells|prbc|rbc"
    r"|pools? of platelets)|\bpools? of platelets",
    r"\b(?:blood|the bag|the unit) (?:was |is )?(?:running|going in|started)|\bbeing transfused\b"
    r"|\b(?:\d(?:st|nd|rd|th)|second|third) unit\b",
)
"""A transfusion now or in the last hours (not a history of transfusions)."""
REACTION = any_of(
    FEVER,
    BACK_PAIN,
    HYPOTENSION,
    HYPOXIA,
    BREATHLESS,
    r"\b(?:rigors?|urticaria|hives|wheez\w+|stridor)\b|sense of (?:impending )?doom"
    r"|something (?:awful|terrible|bad) (?:is )?(?:about to|going to) happen|dark (?:urine|wee)"
    r"|\binfiltrates\b",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "malignant_hyperthermia",
        "Under a volatile anaesthetic or suxamethonium: end-tidal CO2 rising despite more "
        "ventilation, masseter spasm, a climbing temperature",
        ("malignant hyperthermia",),
        "Call for help and say so; stop the volatile agent and change to total intravenous "
        "anaesthesia with high-flow oxygen; dantrolene 2.5 mg/kg IV, repeated; active "
        "cooling; treat hyperkalaemia and arrhythmias; CK, potassium and urine myoglobin.",
        ((GENERAL_ANAESTHETIC, RISING_CO2_OR_HEAT),),
    ),
    RedFlagRule(
        "local_anaesthetic_toxicity",
        "Perioral tingling, a metallic taste, twitching, a seizure, collapse or an "
        "arrhythmia after a local anaesthetic injection or nerve block",
        ("local anaesthetic systemic toxicity (LAST)",),
        "Stop injecting; call for help; airway and oxygen; benzodiazepine for seizures; IV "
        "lipid emulsion 20% (1.5 mL/kg bolus, then infusion); in cardiac arrest, CPR with "
        "smaller adrenaline doses (1 microgram/kg or less) and continue lipid.",
        ((LOCAL_ANAESTHETIC, LAST_SIGNS),),
    ),
    RedFlagRule(
        "spinal_haematoma_after_neuraxial",
        "New leg weakness or numbness after an epidural, a spinal anaesthetic or a lumbar "
        "puncture, especially on an anticoagulant",
        (
            "spinal epidural haematoma compressing the cord",
            "epidural abscess (with fever)",
        ),
        "Neurological examination and MRI spine now; hold anticoagulants and check clotting; "
        "neurosurgical review for decompression within hours; do not put it down to the block "
        "wearing off.",
        (
            (NEURAXIAL, LEGS_FAILING),
            (NEURAXIAL, ANTICOAGULANT, BACK_PAIN),
        ),
        PatientAdvice(
            "Weak or numb legs after an epidural or a spinal injection",
            "Call 999 or go to A&E now: new weakness or numbness in the legs after a spinal "
            "injection can be bleeding pressing on the spinal cord.",
        ),
    ),
    RedFlagRule(
        "transfusion_reaction",
        "Fever, rigors, back pain, hypotension, breathlessness or hypoxia during or within "
        "hours of a blood transfusion",
        (
            "acute haemolytic transfusion reaction (ABO incompatibility)",
            "transfusion-related acute lung injury (TRALI) or circulatory overload (TACO)",
            "anaphylaxis",
            "bacterial contamination of the unit (sepsis)",
        ),
        "Stop the transfusion and keep the line open with saline; check the patient's identity "
        "against the unit; ABCDE and oxygen; IV fluids for shock, but a diuretic, not fluid, "
        "if the picture is overload (TACO); FBC, DAT, LDH, bilirubin, clotting, cultures of the "
        "patient and the unit; return the unit to the lab; tell the blood bank.",
        (
            (
                TRANSFUSION,
                REACTION,
                Absent(r"\blast (?:month|year)\b|\b\d+ (?:weeks|months|years) ago\b"),
            ),
        ),
    ),
)

"""Rows of the red-flag table: poisoning (an overdose, a toxic alcohol, heart drugs, iron in
a child, opioids, anticholinergics) and a dangerous potassium."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    CHILD,
    DIABETES,
    RESP_RATE,
    VISION_LOSS,
    any_of,
    taking,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule

TOXIC_ALCOHOL = (
    r"(?<!dog )(?<!cat )(?<!puppy )(?<!kitten )(?:drank|drunk|drinking|swallowed|ingested|took"
    r"|taken) (?:\w+ ){0,3}(?:anti-?freeze|screen ?wash|windscreen wash\w*|de-?icer|methanol"
    r"|ethylene glycol|methylated spirits?|\bmeths\b|brake fluid|home-?made (?:spirits|alcohol"
    r"|vodka)|moonshine|bootleg)"
)
HIGH_ANION_GAP = any_of(
    r"(?:high|raised|wide|increased|elevated|large) anion gap|\bhagma\b",
    r"\banion gap\s*(?:of|is|was|:|=)?\s*(?:[2-9]\d)(?!\.?\d)",
)
"""An anion gap of 20 mmol/L or more."""
OSMOLAR_GAP = any_of(
    r"(?:high|raised|wide|increased|elevated|large) osmol(?:al|ar)(?:ity)? gap",
    r"\bosmol(?:al|ar)(?:ity)? gap\s*(?:of|is|was|:|=)?\s*(?:1\d|[2-9]\d)(?!\.?\d)",
    r"\b(?:measured|serum|plasma) osmo?\w*\b.{0,40}\bcalc(?:ulated)?\b"
    r"|\bcalc(?:ulated)? (?:serum |plasma )?osmo?\w*\b.{0,40}\b(?:measured|serum|plasma)\b",
)
"""An osmolar gap: measured osmolality above the calculated one by 10 or more."""
ACIDOSIS = (
    r"\bacidosis\b|\bacidaemi\w*|\bacidemi\w*|\bph\s*(?:of|is|was|:|=)?\s*(?:6\.\d|7\.[0-2])\d*"
    r"|\b(?:hco3|bicarb\w*)\s*(?:of|is|was|:|=)?\s*(?:[0-9]|1[0-5])(?!\.?\d)"
)

PARACETAMOL_IN_A_COMBINATION = (
    r"co-?codamol|co-?dydramol|solpadeine|\btylenol\b|lemsip|beechams|cold and flu"
    r"|night nurse|\bpanadol\b|\bzapain\b|\bkapake\b"
)
DOUBLE_PARACETAMOL_LATER = (
    rf"\bparacetamol\b[^.]{{0,80}}?\b(?:{PARACETAMOL_IN_A_COMBINATION})\b[^.]{{0,60}}?\b(?:qds|tds"
    r"|four times|every (?:\d|four|six) hours|regularly|as well)"
)
"""Paracetamol charted and a combination product taken on top, several times a day."""
DOUBLE_PARACETAMOL = (
    r"\b(?:taking|took|taken|been having|had|using) (?:\w+ ){0,3}"
    rf"(?:(?:{PARACETAMOL_IN_A_COMBINATION})(?: \w+){{0,6}} (?:and|plus|with|as well as"
    rf"|on top of) (?:\w+ ){{0,3}}paracetamol|paracetamol(?: \w+){{0,6}} (?:and|plus|with"
    rf"|as well as|on top of) (?:\w+ ){{0,3}}(?:{PARACETAMOL_IN_A_COMBINATION}))"
)
"""Paracetamol taken with a product that already holds it: an unintended (staggered) overdose."""
ABOVE_THE_LABEL = (
    r"more than (?:it says|the (?:box|packet|label|leaflet) says|the (?:recommended|max\w*|allowed"
    r"|safe) (?:dose|amount|number))|over the (?:max\w*|recommended) dose"
)
"""Painkillers taken beyond their label's dose ("more than it says on the box")."""
PAINKILLERS = rf"\bpainkillers?\b|\bparacetamol\b|\bacetaminophen\b|{PARACETAMOL_IN_A_COMBINATION}"

PEAKED_T = r"(?:tall|peaked|tented)(?:,? \w+)? t[- ]?waves?|sine[- ]wave"
POTASSIUM_RISK = (
    r"\bckd\b|chronic kidney|dialysis|renal failure|\baki\b|acute kidney|spironolactone|\bhd "
    r"(?:pt|patient)|missed (?:his |her |their |a )?(?:\w+ )?(?:dialysis|hd|session)"
    r"|eplerenone|amiloride|trimethoprim|ace inhibitor|ramipril|lisinopril|potassium supplement"
    r"|(?:flattened|flat|absent|no) p[- ]?waves?"
)
"""What makes tall T waves the potassium's (a kidney that cannot clear it, a drug that keeps
it, or the P waves fading too) rather than an athlete's or an early infarct's."""

HEART_DRUG_NAMES = (
    r"amlodipine|nifedipine|felodipine|lercanidipine|verapamil|diltiazem|propranolol|atenolol"
    r"|bisoprolol|metoprolol|carvedilol|calcium[- ]channel blockers?|beta[- ]blockers?"
)
HEART_DRUG_EXCESS = (
    r"\b(?:took|taken|swallowed|ingested|had)\b (?:~|about |around |approx\w* |up to )?(?:1[0-9]"
    r"|[2-9]\d"
    r"|\d{3}) (?:of (?:his|her|my|their|the) |x ?)?(?:\w+ ){0,2}?(?:" + HEART_DRUG_NAMES + r")"
)
"""Ten or more tablets of a calcium-channel blocker or a beta-blocker."""
IRON_TABLETS = (
    r"\b(?:ferrous (?:sulphate|sulfate|fumarate|gluconate)|iron (?:tablets|pills|supplements?))\b"
)
CHILD_GOT_INTO = (
    r"\b(?:got into|swallowed|ate|eaten|chewed|took)\b|\bmissing from\b|\b\d+ (?:\w+ )?missing\b"
)
OPIOID = (
    r"fentanyl|morphine|oxycodone|methadone|buprenorphine|tramadol|codeine|heroin|diamorphine"
    r"|opioids?|opiates?"
)
OPIOID_SIGNS = any_of(
    r"pinpoint pupils|pupils (?:are )?(?:tiny|pinpoint|constricted)|tiny pupils|miosis",
    RESP_RATE
    + r"(?:[3-9]|10)(?!\.?\d)|breathing (?:\w+ ){0,2}(?:about |around )?(?:[3-9]|10) (?:a|per) min",
    r"breathing (?:slow|very slow|shallow)|slow (?:shallow )?breathing|hard to rouse|unrousable",
)
DILATED_PUPILS = r"pupils? (?:\w+ )?(?:[6-9] ?mm|dilated|big|large|huge)|dilated pupils|mydriasis"
HOT_DRY = (
    r"(?:hot|dry|flushed)(?:,? (?:and )?(?:hot|dry|flushed|red))+ skin|skin (?:is )?(?:hot,? )?"
    r"(?:dry|flushed)|dry mouth"
)
DELIRIUM_SIGNS = (
    r"picking at (?:things|the air|the sheets)|hallucinat\w+|talking to people who aren't there"
    r"|\bagitated\b|\bdelirious\b"
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "overdose",
        "A deliberate or accidental overdose",
        (
            "paracetamol overdose",
            "co-ingested drugs (opioids, salicylates, tricyclics)",
            "self-harm and suicide risk (if intentional)",
        ),
        "Time and amount of ingestion; paracetamol and salicylate levels at 4 hours (at once "
        "if staggered or the time is unknown); acetylcysteine by the treatment line; ECG; "
        "TOXBASE; mental health assessment once medically fit.",
        (
            (
                any_of(
                    r"\boverdosed\b|(?:took|taken|taking|intentional|deliberate|staggered"
                    r"|suspected) (?:an? )?(?:\w+ )?overdose",
                    r"took (?:a lot of|too many|all (?:of )?(?:my|his|her|the)|\d+) (?:of "
                    r"(?:my|his|her|the) )?(?:\w+ )?(?:tablets|pills)",
                    r"\b(?:took|taken|swallowed|ingested)\b[^.;]{0,100}?\b(?:\d{2}|twenty|thirty"
                    r"|forty|fifty) (?:\w+ )?(?:tablets|pills|capsules)",
                    r"took '?(?:a handful|handfuls|a (?:whole )?(?:packet|box|strip|bottle"
                    r"|pack))'? of \w+",
                    r"\b(?:took|taken|swallowed|ingested)\b[^.;]{0,30}?\b(?:1[6-9]|[2-9]\d|\d{3}) ?"
                    r"(?:x|×) ?\d+(?:\.\d+)? ?(?:mg|g)\b",
                ),
            ),
            (DOUBLE_PARACETAMOL,),
            (DOUBLE_PARACETAMOL_LATER,),
            (PAINKILLERS, ABOVE_THE_LABEL),
        ),
        PatientAdvice(
            "Too many tablets taken",
            "Call 999 or go to A&E now, even if you feel well: an overdose can cause harm "
            "that only shows later.",
        ),
    ),
    RedFlagRule(
        "toxic_alcohol",
        "A high anion gap metabolic acidosis with an osmolar gap, or antifreeze, screenwash or "
        "methanol swallowed",
        (
            "toxic alcohol poisoning (methanol, ethylene glycol)",
            "salicylate poisoning",
            "ketoacidosis (diabetic, alcoholic or starvation)",
            "lactic acidosis (sepsis, ischaemia, metformin)",
        ),
        "Fomepizole (or IV ethanol) at once on suspicion, without waiting for levels; venous "
        "gas, lactate, ketones, glucose, U&E, calcium, measured and calculated osmolality, "
        "ethanol, salicylate and paracetamol levels, and methanol or ethylene glycol levels; "
        "IV sodium bicarbonate for severe acidosis; early haemodialysis; advice from TOXBASE "
        "or a poisons service.",
        (
            (HIGH_ANION_GAP, OSMOLAR_GAP),
            (OSMOLAR_GAP, ACIDOSIS),
            (VISION_LOSS, ACIDOSIS, Absent(DIABETES)),
            (TOXIC_ALCOHOL,),
        ),
        PatientAdvice(
            "Antifreeze, screenwash or methanol swallowed",
            "Call 999 now, even if they seem well: these poisons cause harm hours later and "
            "need an antidote.",
        ),
    ),
    RedFlagRule(
        "severe_hyperkalaemia",
        "Potassium 6.0 mmol/L or more",
        ("life-threatening arrhythmia from hyperkalaemia",),
        "12-lead ECG and cardiac monitoring; IV calcium gluconate 10% 30 mL if there are ECG "
        "changes; insulin 10 units with glucose; nebulised salbutamol; stop potassium-raising "
        "drugs; repeat the level (haemolysis?).",
        (
            (
                r"\b(?:k\+?|potassium)\s*(?:level\s*)?(?:of|is|was|at|=|:|now)?\s*"
                r"(?:6(?:\.\d+)?|[7-9](?:\.\d+)?)(?!\.?\d)",
            ),
            (r"hyperkala?emi\w*", r"peaked t|tented t|wide(?:ned)? qrs|sine wave|bradycardi\w*"),
            (
                PEAKED_T,
                any_of(
                    POTASSIUM_RISK,
                    r"(?:wide|broad)\w* qrs|qrs (?:\w+ )?1[2-9]\d|qrs (?:\w+ ){0,2}(?:broad|wide)",
                ),
            ),
        ),
    ),
    RedFlagRule(
        "heart_drug_overdose",
        "Ten or more tablets of a calcium-channel blocker or a beta-blocker, even if well now",
        (
            "calcium channel blocker overdose (shock and bradycardia, delayed with "
            "modified-release tablets)",
            "beta-blocker overdose",
        ),
        "Admit with cardiac monitoring for at least 12 hours (24 for modified-release); ECG; "
        "activated charcoal if early, whole-bowel irrigation for modified-release; IV fluids, "
        "calcium and high-dose insulin euglycaemia therapy for shock; TOXBASE.",
        ((HEART_DRUG_EXCESS,),),
    ),
    RedFlagRule(
        "iron_poisoning",
        "A child who has swallowed iron tablets",
        ("iron poisoning (gut necrosis, shock, liver failure)",),
        "Work out the elemental iron per kg (over 20 mg/kg needs assessment, over 60 mg/kg is "
        "serious); serum iron at 4 hours; abdominal X-ray for tablets; desferrioxamine if "
        "severe; TOXBASE; paediatric review.",
        ((IRON_TABLETS, CHILD_GOT_INTO, CHILD),),
    ),
    RedFlagRule(
        "opioid_toxicity",
        "On an opioid (a fentanyl patch, morphine, methadone) and now hard to rouse, with slow "
        "breathing or pinpoint pupils",
        ("opioid toxicity (respiratory depression)",),
        "Airway and oxygen, bag-mask if breathing is inadequate; naloxone IV or IM, titrated "
        "(repeated or as an infusion for long-acting opioids and patches); remove patches; "
        "look for the cause (heat on a patch, kidney injury, a new drug).",
        ((taking(OPIOID), OPIOID_SIGNS),),
    ),
    RedFlagRule(
        "anticholinergic_toxicity",
        "Agitation or hallucinations with dilated pupils, hot dry flushed skin or urinary "
        "retention",
        ("anticholinergic toxicity (antihistamines, tricyclics, antipsychotics, plants)",),
        "Cardiac monitoring and ECG (broad QRS suggests a tricyclic); benzodiazepines for "
        "agitation, not haloperidol; cooling; catheter for retention; physostigmine only with "
        "toxicology advice; TOXBASE.",
        (
            (DILATED_PUPILS, HOT_DRY),
            (DELIRIUM_SIGNS, HOT_DRY),
            (
                DILATED_PUPILS,
                DELIRIUM_SIGNS,
                r"bladder (?:is )?palpable|palpable bladder|retention",
            ),
        ),
    ),
)

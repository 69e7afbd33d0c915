"""Rows of the red-flag table: infection and sepsis (toxic shock, a rash that does not fade,
fever in chemotherapy, in infancy or after travel), a green vomit, and the limbs."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    CHILD_AGE,
    CONFUSED,
    DIARRHOEA,
    FEVER,
    HYPOTENSION,
    LONG_AGO,
    LOW_GRADE_FEVER,
    LOW_TEMP,
    OLDER_ADULT,
    PAIN_OUT_OF_PROPORTION,
    RESP_RATE,
    VOMITING,
    any_of,
)
from docgemma.red_flags.rule import Absent, Fact, PatientAdvice, RedFlagRule
from docgemma.severity import Severity

FAST_BREATHING = RESP_RATE + r"(?:2[2-9]|[3-6]\d)(?!\.?\d)"
"""A respiratory rate of 22 or more."""
SYSTOLIC_100_OR_LESS = any_of(
    r"\b(?:bp|blood pressure|b/p)\s*(?:of|is|was|at|only|:|=|down to)?\s*(?:[4-9]\d|100)\s*"
    r"(?:/|over)\s*\d{2,3}\b",
    r"\b(?:sbp|systolic)\s*(?:of|is|was|at|:|=)?\s*(?:[4-9]\d|100)\b",
)
"""With a respiratory rate of 22 or more and altered mentation, the three signs of the quick
SOFA score: any two in an adult who may have an infection mean sepsis until shown otherwise."""
INFECTION_OR_FRAILTY = any_of(
    FEVER,
    r"infect\w*|\buti\b|pneumonia|cellulitis|\bsepsis\b|\bseptic\b|\bcough\w*|dysuri\w*"
    r"|\bwound\b|abscess|pyelonephritis|cholecystitis|\brigors?\b|\bcrp\b|\bshiver\w*",
    LOW_TEMP,
    OLDER_ADULT,
)
"""A possible infection, or an older patient in whom sepsis shows as no more than confusion,
a fall or "off legs"."""
LIMB = r"\b(?:leg|foot|feet|arm|hand|limb|calf|forearm|toes?|fingers?)\b"
PULSE_SITE = any_of(LIMB, r"\b(?:pedal|femoral|popliteal|dorsalis|distal|tibial)\b")
"""Where a missing pulse is a limb's; a pulse missing in a collapsed patient is an arrest."""
SKIN = (
    r"cellulitis|\bwound\b|redness|\berythema\w*|\bskin\b|swelling|\bswollen\b|\b(?:cut|graze"
    r"|scratch|bite|laceration)\b|\b(?:pink|red) (?:patch|area|mark)"
)
TSS_SOURCE = (
    r"\btampons?\b|menstrual cup|(?:nasal|wound) packing|\bpacking (?:in|of) (?:the |her |his "
    r"|a )?(?:nose|wound|abscess)|\b(?:her|my) period\b|\bperiod (?:started|began)|\bmenstruat\w+"
)
"""What staphylococcal toxic shock grows on: a tampon, a menstrual cup or packing."""
SUNBURN_RASH = any_of(
    r"\blike (?:a |bad )?sunburn\b|\bsunburn[- ]like\b|\berythroderm\w+",
    r"\b(?:diffuse|widespread|generali[sz]ed) (?:\w+ ){0,2}(?:erythema\w*|erythematous|red (?:rash"
    r"|skin)|macular)",
    r"\b(?:red|erythematous) (?:rash|skin)['\s]+(?:\w+['\s]+){0,3}(?:all over|everywhere)",
)
"""A diffuse red rash like sunburn: the rash of toxic shock."""
MALARIA_AREA = (
    r"\b(?:sub-?saharan|west|east|central|southern) africa|\bafrica\b|nigeria|lagos|abuja|ghana"
    r"|accra|kenya|nairobi|uganda|kampala|tanzania|zanzibar|malawi|zambia|mozambique|sierra leone"
    r"|liberia|guinea|cameroon|congo|kinshasa|angola|ethiopia|sudan|somalia|senegal|gambia|mali"
    r"|burkina faso|ivory coast|c[oô]te d'ivoire|togo|benin|niger|chad|rwanda|burundi|madagascar"
    r"|zimbabwe|india|pakistan|bangladesh|myanmar|cambodia|laos|papua|solomon islands|indonesia"
    r"|amazon (?:rainforest|basin|jungle)|guyana|venezuela|haiti"
)
"""Where falciparum malaria is common (not exhaustive: travel anywhere warrants the question)."""
TRAVEL = any_of(
    r"(?:travel(?:l)?ed|travel(?:l)?ing|trip|holiday|visit\w*) (?:home )?(?:from|to|in) "
    r"|\b(?:returned|returning|back) (?:home )?from |recent travel|returned traveller",
    r"\b(?:back|home|returned|arrived) (?:\w+ ){0,3}from (?:\w+ ){0,4}?(?:" + MALARIA_AREA + r")",
    r"(?<!born )(?<!grew up )(?<!lives )(?<!living )\b(?:in|to|visiting|visited|via) (?:\w+ ){0,2}?"
    r"(?:" + MALARIA_AREA + r")\b",
    r"\b(?:malaria|antimalarial|anti-malarial)s? (?:prophylaxis|tablets|pills|chemoprophylaxis)"
    r"|\bno (?:malaria )?prophylaxis\b",
)
"""Recent travel, or a malaria area named."""
BABY_FEVER_ADVICE = (
    "Call 999 or go to A&E now: a baby under 3 months with a temperature of 38C or more "
    "needs to be seen straight away."
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "sepsis_signs",
        "Infection with hypotension, confusion, mottled skin or a raised lactate",
        ("sepsis or septic shock",),
        "Within the hour: blood cultures, IV broad-spectrum antibiotics, lactate, IV fluid "
        "bolus (500 mL crystalloid in an adult, 10 mL/kg in a child, reassessed after each), "
        "oxygen to target, urine output; find the source; senior review.",
        (
            (r"\bmottl\w+|non-?blanching mottling",),
            (FEVER, any_of(HYPOTENSION, CONFUSED)),
            (FAST_BREATHING, CONFUSED, INFECTION_OR_FRAILTY, Absent(CHILD_AGE)),
            (FAST_BREATHING, SYSTOLIC_100_OR_LESS, INFECTION_OR_FRAILTY, Absent(CHILD_AGE)),
            (CONFUSED, SYSTOLIC_100_OR_LESS, INFECTION_OR_FRAILTY, Absent(CHILD_AGE)),
            (r"\blactate (?:of |is |was |:|=)?\s*(?:[4-9]|\d\d)(?:\.\d)?\b|raised lactate",),
            (
                r"(?:hasn't|has not|not|haven't|no) (?:passed|passing) (?:any )?urine|\banuri\w+",
                any_of(FEVER, CONFUSED, r"shiver\w*|rigors?"),
            ),
        ),
        PatientAdvice(
            "Signs of sepsis: confused, mottled or blue skin, not passing urine",
            "Call 999 or go to A&E now: these can be signs of sepsis, a life-threatening "
            "reaction to an infection.",
        ),
    ),
    RedFlagRule(
        "toxic_shock",
        "Fever with a diffuse sunburn-like rash, hypotension, vomiting or diarrhoea, with a "
        "tampon, packing or wound",
        (
            "toxic shock syndrome (staphylococcal or streptococcal)",
            "meningococcal sepsis",
            "necrotising fasciitis",
        ),
        "Remove any tampon or packing and look for a focus (wound, abscess, surgical site); "
        "sepsis resuscitation with IV fluids; blood cultures and swabs; IV broad-spectrum "
        "antibiotics with clindamycin to switch off toxin production; IV immunoglobulin for "
        "severe streptococcal toxic shock; critical care review; surgical debridement of any "
        "focus.",
        (
            (
                TSS_SOURCE,
                FEVER,
                any_of(SUNBURN_RASH, HYPOTENSION, CONFUSED, VOMITING, DIARRHOEA, r"\bdizz\w+"),
            ),
            (SUNBURN_RASH, FEVER, any_of(HYPOTENSION, CONFUSED, VOMITING, DIARRHOEA)),
        ),
        PatientAdvice(
            "A high temperature with a sunburn-like rash, vomiting, diarrhoea or dizziness, "
            "especially while using tampons",
            "Remove any tampon and call 999 or go to A&E now: this can be toxic shock syndrome.",
        ),
    ),
    RedFlagRule(
        "meningococcal_rash",
        "A non-blanching (petechial or purpuric) rash",
        ("meningococcal sepsis", "bacterial meningitis"),
        "IV or IM benzylpenicillin or ceftriaxone at once (before hospital if there will be a "
        "delay); blood cultures; sepsis resuscitation; senior help now.",
        (
            (
                r"rash|\bspots\b|\bblotch\w*|\bdots\b",
                r"(?:doesn't|does not|didn't|did not|don't|do not|won't|will not|not) "
                r"(?:fade|blanch|disappear)|non-?blanch\w*",
            ),
            (r"\bpetechia\w*|\bpurpur\w+",),
        ),
        PatientAdvice(
            "A rash that does not fade under a glass",
            "Call 999 or go to A&E now: a rash that does not fade when pressed can be "
            "meningitis or sepsis.",
        ),
    ),
    RedFlagRule(
        "neutropenic_fever",
        "Fever during chemotherapy or with neutropenia",
        ("neutropenic sepsis (including a central line infection)",),
        "IV piperacillin–tazobactam (or the local regimen) within 1 hour of arrival, without "
        "waiting for the neutrophil count; blood cultures and lactate.",
        (
            (r"\bchemo(?:therapy)?\b|\bneutropeni\w+|\bneutrophils? (?:of |is |was )?0\.\d", FEVER),
            (
                r"\bchemo(?:therapy)?\b|\bneutropeni\w+",
                any_of(LOW_GRADE_FEVER, r"\bshiver\w*|\bshaking (?:chills|all over)|\bchills\b"),
                Absent(LONG_AGO),
            ),
        ),
        PatientAdvice(
            "A temperature during chemotherapy",
            "Call your chemotherapy helpline or go to A&E now: a temperature during "
            "chemotherapy can be a serious infection.",
        ),
    ),
    RedFlagRule(
        "infant_fever",
        "Fever in an infant under 3 months",
        ("serious bacterial infection (sepsis, meningitis, urinary tract infection)",),
        "Same-day paediatric assessment: blood cultures, FBC, CRP, urine and lumbar puncture "
        "as indicated; IV cefotaxime (plus amoxicillin under 1 month) without delay.",
        ((Fact.YOUNG_INFANT, FEVER),),
        PatientAdvice("A baby under 3 months with a high temperature", BABY_FEVER_ADVICE),
    ),
    RedFlagRule(
        "bilious_vomiting",
        "Green (bilious) vomiting",
        ("malrotation with volvulus (in infants)", "bowel obstruction"),
        "Nil by mouth, nasogastric tube and IV fluids; urgent (paediatric) surgical review; "
        "upper GI contrast study in an infant.",
        (
            (
                r"\bbilious\b|green(?:ish)? (?:vomit|sick)|vomit\w*[^.;]{0,25}?\b(?:dark |bright "
                r"|bottle |grass )?(?:green|bile)\b",
            ),
        ),
        PatientAdvice(
            "Vomiting green bile",
            "Go to A&E now: green vomit can mean a blocked bowel.",
        ),
    ),
    RedFlagRule(
        "returned_traveller_fever",
        "Fever after travel",
        (
            "falciparum malaria",
            "severe dengue (bleeding, vomiting, abdominal pain, falling platelets)",
            "other imported infection (typhoid, viral haemorrhagic fever)",
        ),
        "Thick and thin blood films or a rapid antigen test today, repeated over 48–72 hours "
        "if negative; IV artesunate for severe malaria; infectious diseases advice.",
        ((FEVER, TRAVEL),),
        PatientAdvice(
            "A high temperature after travel abroad",
            "Get medical help today (GP or NHS 111): a fever after travel can be malaria, "
            "which needs a blood test the same day.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
    RedFlagRule(
        "necrotising_infection",
        "Soft-tissue infection with pain out of proportion, crepitus or rapid spread",
        ("necrotising fasciitis (Fournier's gangrene when perineal or scrotal)",),
        "Urgent surgical review for debridement; IV broad-spectrum antibiotics including "
        "clindamycin; sepsis resuscitation.",
        (
            (PAIN_OUT_OF_PROPORTION, SKIN),
            (r"\bcrepitus\b|\bcrackl\w+ (?:when|on) (?:i |you )?press\w*|\bcrackly\b", SKIN),
            (r"(?:rapidly|fast|quickly) spreading|spreading (?:rapidly|fast|quickly)", SKIN),
        ),
        PatientAdvice(
            "A red, painful area of skin that is spreading fast",
            "Go to A&E now: skin infection that spreads quickly, or pain far worse than it "
            "looks, needs urgent treatment.",
        ),
    ),
    RedFlagRule(
        "compartment_syndrome",
        "Limb pain out of proportion, or on passive stretch, after a fracture, crush or cast",
        ("compartment syndrome",),
        "Split or remove the cast and dressings to the skin, limb at heart level; measure "
        "compartment pressure; urgent orthopaedic review for fasciotomy.",
        (
            (
                any_of(
                    PAIN_OUT_OF_PROPORTION,
                    r"pain on passive (?:stretch|movement)|(?:screams?|cries|crying|agony|winces?)"
                    r"(?: \w+){0,2} when (?:i|we|you|the \w+) (?:passively )?(?:move|moved"
                    r"|stretch\w*|flex\w*) (?:\w+ ){0,2}(?:toes|fingers|foot|ankle|wrist)"
                    r"|tense (?:calf|forearm|compartment|leg)",
                ),
                any_of(LIMB, r"fracture|crush|\bcast\b|plaster|back ?slab"),
            ),
            (
                r"\bcast\b|plaster|back ?slab|\btib(?:ia|ial)?\b|\bfib(?:ula)?\b|tib/fib|forearm"
                r"|\bradius\b|\bulna\b|supracondylar|\bcrush",
                r"(?:pain|painful) (?:[\w/]+ ){0,2}despite (?:\w+ ){0,4}(?:morphine|opioids?"
                r"|analgesia|painkillers)",
            ),
            (
                r"\bcast\b|plaster|back ?slab",
                r"(?:pain|painful) (?:is )?(?:getting )?(?:worse|severe)|"
                r"severe pain|can't move (?:my|his|her) (?:toes|fingers)",
            ),
        ),
        PatientAdvice(
            "Severe or worsening pain under a plaster cast",
            "Go to A&E now: pain that keeps getting worse under a cast can mean dangerous "
            "pressure in the limb.",
        ),
    ),
    RedFlagRule(
        "acute_limb_ischaemia",
        "A cold, pale or pulseless limb",
        ("acute limb ischaemia",),
        "IV heparin; urgent vascular surgery; CT angiography; revascularisation within 6 hours.",
        (
            (
                r"(?:cold|white|pale|mottled|blue)"
                r"(?:,? (?:and )?(?:cold|white|pale|painful|numb))* " + LIMB,
            ),
            (
                r"pulseless|absent (?:foot |pedal |distal |femoral |popliteal )?pulses?"
                r"|no (?:foot |pedal |distal )?pulses?",
                PULSE_SITE,
            ),
            (
                r"\b(?:leg|foot|arm|limb|calf|forearm)\b(?: (?:is|was|looks|feels|has gone))? "
                r"(?:cold|white|pale|mottled|blue)(?:,? (?:and )?(?:cold|white|pale|mottled|numb"
                r"|blue))+\b",
                Absent(r"raynaud\w*|in the cold\b|cold weather|when (?:it's |it is )?cold"),
            ),
            (r"(?:can't|unable to) (?:feel|find|palpate) (?:a |any )?(?:\w+ )?pulses?", PULSE_SITE),
        ),
        PatientAdvice(
            "A cold, pale, painful leg or arm",
            "Call 999 now: a suddenly cold, pale and painful limb can mean its blood supply "
            "is blocked.",
        ),
    ),
)

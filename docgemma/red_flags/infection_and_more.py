"""Rows of the red-flag table: infection and sepsis, infants, limbs, poisoning and
potassium."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    CONFUSED,
    FEVER,
    HYPOTENSION,
    PAIN_OUT_OF_PROPORTION,
    any_of,
)
from docgemma.red_flags.rule import Fact, PatientAdvice, RedFlagRule
from docgemma.severity import Severity

LIMB = r"\b(?:leg|foot|feet|arm|hand|limb|calf|forearm|toes?|fingers?)\b"
SKIN = r"cellulitis|\bwound\b|redness|\berythema\w*|\bskin\b|swelling|\bswollen\b"
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
        "bolus (500 mL crystalloid), oxygen to target, urine output; find the source; senior "
        "review.",
        (
            (r"\bmottl\w+|non-?blanching mottling",),
            (FEVER, any_of(HYPOTENSION, CONFUSED)),
            (r"\blactate (?:of |is |was |:|=)?\s*(?:[4-9]|\d\d)(?:\.\d)?\b|raised lactate",),
            (
                r"(?:hasn't|has not|not|haven't|no) (?:passed|passing) (?:any )?urine"
                r"|\banuri\w+",
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
        "meningococcal_rash",
        "A non-blanching (petechial or purpuric) rash",
        ("meningococcal sepsis", "bacterial meningitis"),
        "IV or IM benzylpenicillin or ceftriaxone at once (before hospital if there will be a "
        "delay); blood cultures; sepsis resuscitation; senior help now.",
        (
            (
                r"rash",
                r"(?:doesn't|does not|didn't|did not|won't|will not|not) fade"
                r"|non-?blanch\w*|doesn't blanch|does not blanch",
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
        ("neutropenic sepsis",),
        "IV piperacillin–tazobactam (or the local regimen) within 1 hour of arrival, without "
        "waiting for the neutrophil count; blood cultures and lactate.",
        ((r"chemo\w*|\bneutropeni\w+|\bneutrophils? (?:of |is |was )?0\.\d", FEVER),),
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
        ((r"\bbilious\b|green (?:vomit|sick)|vomit\w* (?:up )?(?:green|bile)",),),
        PatientAdvice(
            "Vomiting green bile",
            "Go to A&E now: green vomit can mean a blocked bowel.",
        ),
    ),
    RedFlagRule(
        "returned_traveller_fever",
        "Fever after travel",
        ("falciparum malaria", "other imported infection (typhoid, viral haemorrhagic fever)"),
        "Thick and thin blood films or a rapid antigen test today, repeated over 48–72 hours "
        "if negative; IV artesunate for severe malaria; infectious diseases advice.",
        (
            (
                FEVER,
                r"(?:returned|returning|back|came back|got back|travel(?:l)?ed|travel(?:l)?ing"
                r"|trip|"
                r"holiday|visit\w*) (?:home )?(?:from|to|in) |recent travel|returned traveller",
            ),
        ),
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
        ("necrotising fasciitis",),
        "Urgent surgical review for debridement; IV broad-spectrum antibiotics including "
        "clindamycin; sepsis resuscitation.",
        (
            (PAIN_OUT_OF_PROPORTION, SKIN),
            (r"\bcrepitus\b", SKIN),
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
                    r"pain on passive (?:stretch|movement)"
                    r"|tense (?:calf|forearm|compartment|leg)",
                ),
                any_of(LIMB, r"fracture|crush|\bcast\b|plaster"),
            ),
            (
                r"\bcast\b|plaster",
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
            ),
        ),
        PatientAdvice(
            "A cold, pale, painful leg or arm",
            "Call 999 now: a suddenly cold, pale and painful limb can mean its blood supply "
            "is blocked.",
        ),
    ),
    RedFlagRule(
        "overdose",
        "A deliberate or accidental overdose",
        ("paracetamol poisoning", "co-ingested drugs (opioids, salicylates, tricyclics)"),
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
                ),
            ),
        ),
        PatientAdvice(
            "Too many tablets taken",
            "Call 999 or go to A&E now, even if you feel well: an overdose can cause harm "
            "that only shows later.",
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
                r"(?:6(?:\.\d+)?|[7-9](?:\.\d+)?)(?![\d.])",
            ),
            (r"hyperkala?emi\w*", r"peaked t|tented t|wide(?:ned)? qrs|sine wave|bradycardi\w*"),
        ),
    ),
)

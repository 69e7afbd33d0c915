"""Rows of the red-flag table: harm from a medicine the patient takes or took, which the story
usually blames on something else (a "gastro" on digoxin, a "viral rash" weeks into a new
drug, a "panic attack" with ringing ears, a swollen tongue on an ACE inhibitor)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    FEVER,
    HEART_RATE,
    HYPOXIA,
    LONG_AGO,
    RESP_RATE,
    SEIZURE,
    VOMITING,
    WORD,
    any_of,
    taking,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule

ON_DIGOXIN = taking(r"digoxin|lanoxin|digitoxin")
DIGOXIN_SIGNS = any_of(
    VOMITING,
    r"\bnause\w+|off (?:her |his )?food|\banorexi\w+|\bconfus\w+",
    r"(?:yellow|green)(?:ish)? (?:vision|tinge)|(?:look|see)s? (?:\w+ ){0,2}(?:yellow|green)"
    r"|\bxanthopsia\b|halos?\b",
    r"\bbradycardi\w*|" + HEART_RATE + r"(?:[2-4]\d)(?!\.?\d)",
    r"\baki\b|acute kidney|creat\w*\s*(?:of|is|was|:|=)?\s*(?:1[5-9]\d|[2-9]\d\d)(?!\.?\d)",
)
HEPARIN_NAMES = r"heparin|enoxaparin|dalteparin|tinzaparin|lmwh|clexane|fragmin"
HEPARIN = any_of(taking(HEPARIN_NAMES), rf"\bday \d+ (?:of|on) (?:\w+ )?(?:{HEPARIN_NAMES})\b")
"""A patient on heparin, not a question about it."""
PLATELET_FALL = any_of(
    r"\b(?:plt|platelets?)\s*(?:count\s*)?(?:of |was |were |from )?\d{2,3}\s*(?:→|->|to|down to"
    r"|now|then)\s*(?:\d{1,2}|1[0-4]\d)\b",
    rf"(?:platelets?|plt) (?:{WORD} ){{0,2}}(?:fall\w*|fell|dropp\w*|halved)|thrombocytopeni\w+"
    r"|low platelets",
)
"""Platelets falling, or falling below 150: the count after an arrow is the new one."""
CULPRIT_DRUG = taking(
    r"allopurinol|carbamazepine|oxcarbazepine|lamotrigine|phenytoin|phenobarbital"
    r"|co-trimoxazole|sulfasalazine|sulphasalazine|dapsone|nevirapine|abacavir|minocycline"
    r"|vancomycin"
)
"""A patient on a drug known for severe skin reactions."""
MUCOSAL_OR_BLISTERS = any_of(
    r"(?:mouth|oral|lip|genital) (?:ulcer\w*|sores|erosions?|blisters?)|painful mouth",
    r"(?:sore|gritty|red|sticky) (?:\w+ )?eyes|conjunctivitis",
    r"\bblister\w*|\bbullae\b|\bbullous\b|skin (?:peeling|coming off|sloughing)|nikolsky"
    r"|(?:dusky|target|targetoid)(?:[- ]like)? (?:\w+ )?(?:spots|lesions|rash|macules)",
)
SYSTEMIC_DRUG_RASH = any_of(
    r"\beosinophil\w*|\beos\s*(?:of|is|was|:|=)?\s*(?:[1-9](?:\.\d)?)(?!\.?\d)",
    r"(?:swollen|puffy|oedematous) face|facial (?:swelling|oedema)",
    r"(?:lymph|neck) (?:nodes|glands) (?:\w+ ){0,2}(?:up|swollen|enlarged)|lymphadenopath\w+",
    r"\balt\s*(?:of|is|was|:|=)?\s*(?:[1-9]\d{2,})(?!\.?\d)|deranged lfts?|hepatitis",
)
RASH = r"\brash\b|\berythem\w+|\bexanthem\w*|\bspots\b|\bhives\b|\burticari\w+"
ON_METFORMIN = taking(r"metformin")
LACTIC_ACIDOSIS = any_of(
    r"\blactate\s*(?:of|is|was|:|=)?\s*(?:[5-9]|1\d|2\d)(?:\.\d+)?(?!\.?\d)",
    r"lactic acidosis",
)
OXIDISING_DRUG = any_of(
    taking(r"dapsone|benzocaine|prilocaine|primaquine|rasburicase"),
    r"\b(?:used|using|sniffed|inhaled|drank|swallowed) (?:\w+ )?(?:poppers|nitrites?)",
)
SATS_NOT_RISING = (
    r"(?:sats|spo2|saturations?)(?: [\w%]+){0,4} (?:not|n't) (?:\w+ )?(?:improv\w+|rising|rise|"
    r"go(?:ing)? up)(?: \w+){0,2} (?:on|with|despite) (?:\d+ ?l |high[- ]flow )?(?:o2|oxygen)"
)
NORMAL_PAO2 = (
    r"\bpao2\b(?: \w+){0,3} (?:normal|high|fine|(?:1[3-9]|[2-9]\d)(?:\.\d)? ?kpa)"
    r"|(?:normal|high) pao2"
)
"""A normal or high arterial oxygen beside low saturations: the saturation gap."""
SATURATION_GAP = any_of(
    r"chocolate[- ]?(?:brown|coloured|colored)? blood|blood (?:looks |is |was )?(?:\w+ )?chocolate",
    r"saturation gap|methaemoglobin\w*|methemoglobin\w*|\bmethb\b",
)
CYANOSED = any_of(
    HYPOXIA,
    r"\bcyano\w+|(?:blue|dusky|grey) (?:lips|skin)|lips (?:look )?(?:\w+ )?(?:blue|dusky|grey)",
)
ACE_INHIBITOR = taking(
    r"ramipril|lisinopril|enalapril|perindopril|captopril|trandolapril|quinapril|fosinopril"
    r"|sacubitril|an ace inhibitor|ace-?i"
)
FACE_SWELLING = (
    r"(?:swollen|swelling (?:of|in) (?:the |his |her )?|puffy|enlarged) (?:upper |lower )?"
    rf"(?:lips?|tongue|face|mouth|throat)|(?:lips?|tongue|face) (?:is |are |was )?(?:{WORD} )?"
    r"(?:swollen|swelling)|angio-?o?edema"
)
TINNITUS = r"\btinnitus\b|ringing (?:in )?(?:\w+ )?ears|(?:ears|ear) (?:are |is )?ringing"
FAST_DEEP_BREATHING = any_of(
    RESP_RATE + r"(?:2[4-9]|[3-6]\d)(?!\.?\d)",
    r"hyperventilat\w+|breathing (?:fast|quickly|deeply)|\btachypn\w+",
    r"\banion gap\b|respiratory alkalosis|metabolic acidosis",
)
"""The breathing and the blood gas of salicylate poisoning (vomiting alone, with tinnitus, is as
often the inner ear)."""
TRICYCLIC = (
    r"\bamitriptyline\b|\bnortriptyline\b|\bdosulepin\b|\bclomipramine\b|\bimipramine\b"
    r"|\blofepramine\b|\bdoxepin\b|\btricyclics?\b|\btca\b"
)
POISONED = any_of(
    r"\boverdosed\b|(?:took|taken|taking|intentional|deliberate|staggered|suspected) (?:an? )?"
    r"(?:\w+ ){0,2}overdose",
    r"empty (?:\w+ ){0,2}(?:packets?|packs|boxes|bottles?|strips)|took (?:a handful|a lot|too many"
    r"|all)|\bswallowed\b|found with (?:\w+ ){0,3}(?:empty|packets?|packs|tablets|pills|bottles?"
    r"|blisters?)",
)
"""Tablets taken in excess, as a case tells it (not a question about treating an overdose)."""
SODIUM_CHANNEL_BLOCK = any_of(
    r"\bqrs\s*(?:of|is|was|:|=)?\s*(?:1[2-9]\d|[2-9]\d\d) ?ms|broad(?:ening)? qrs|wide(?:ned)? qrs",
    r"\br(?:[- ]wave)? (?:\w+ ){0,2}(?:in )?avr\b",
    SEIZURE,
)

METHOTREXATE = r"methotrexate|\bmtx\b"
DAILY_DOSING = any_of(
    r"\b(?:giving|given|taking|taken|takes|took|had|having) (?:her |his |their |the )?(?:it|them"
    r"|methotrexate|mtx)\b (?:\w+ ){0,2}"
    r"'?(?:every (?:day|morning|evening|night)|each (?:day|morning)|daily|once a day|od)\b",
    r"(?:every day|daily) (?:by mistake|instead of (?:once )?weekly)"
    r"|\binstead of (?:once )?weekly\b"
    r"|(?:double|extra|too many|several) (?:doses|tablets)|\boverdose\w*",
)
"""A weekly drug given every day, or in excess."""
NOT_FOR_MARROW = r"\bectopic\b|\bmiscarriage\b|\btermination\b|\bmolar pregnancy\b"
"""Methotrexate given once for a pregnancy, whose bleeding is expected."""
MARROW_OR_MUCOSA = any_of(
    r"mouth ulcers|\bmucositis\b|sore (?:mouth|throat)|\bstomatitis\b",
    r"\bbruis\w+|\bbleed\w*|\bpetechi\w+|\bneutropeni\w+|\bpancytopeni\w+",
    FEVER,
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "methotrexate_toxicity",
        "Methotrexate taken daily instead of weekly, or mouth ulcers, a sore throat, bruising or "
        "fever in a patient on methotrexate",
        (
            "methotrexate toxicity (bone marrow suppression, mucositis)",
            "neutropenic sepsis",
        ),
        "Stop methotrexate; FBC, U&E and liver tests today; folinic acid rescue (calcium "
        "folinate) at once after an overdose or with cytopenias, on specialist or poisons "
        "advice; admit if neutropenic, septic or unable to swallow.",
        (
            (taking(METHOTREXATE), MARROW_OR_MUCOSA, Absent(NOT_FOR_MARROW), Absent(LONG_AGO)),
            (taking(METHOTREXATE), DAILY_DOSING, Absent(NOT_FOR_MARROW)),
        ),
        PatientAdvice(
            "Mouth ulcers, a sore throat, bruising or a fever while taking methotrexate",
            "Stop the methotrexate and get medical help today (GP or A&E) for a blood test: "
            "these can be signs of methotrexate harming the blood.",
        ),
    ),
    RedFlagRule(
        "digoxin_toxicity",
        "A patient on digoxin with nausea, vomiting, confusion, yellow or blurred vision, a "
        "slow pulse or a kidney injury",
        ("digoxin toxicity", "hyperkalaemia"),
        "Stop digoxin; digoxin level (6 hours after the last dose), potassium, magnesium, "
        "U&E; cardiac monitoring and a 12-lead ECG; digoxin-specific antibody fragments for "
        "a life-threatening arrhythmia, high potassium or a large overdose.",
        ((ON_DIGOXIN, DIGOXIN_SIGNS),),
    ),
    RedFlagRule(
        "heparin_induced_thrombocytopenia",
        "A platelet fall or a new clot 5–14 days into heparin or low molecular weight heparin",
        ("heparin-induced thrombocytopenia (with thrombosis)",),
        "Stop all heparin (including flushes); 4Ts score and HIT antibody test; start a "
        "non-heparin anticoagulant (argatroban, fondaparinux or a DOAC per haematology); "
        "no platelet transfusion; scan for thrombosis.",
        ((HEPARIN, PLATELET_FALL),),
    ),
    RedFlagRule(
        "severe_drug_rash",
        "A rash with blisters, skin loss, mouth or eye involvement, or with fever, facial "
        "swelling, eosinophilia or hepatitis, days to weeks after starting a drug",
        (
            "Stevens-Johnson syndrome or toxic epidermal necrolysis (SJS/TEN)",
            "DRESS (drug reaction with eosinophilia and systemic symptoms)",
        ),
        "Stop the suspected drug at once; FBC with eosinophils, LFT, U&E; skin surface "
        "involved; same-day dermatology (burns or intensive care for extensive skin loss); "
        "ophthalmology if the eyes are involved.",
        (
            (CULPRIT_DRUG, RASH, MUCOSAL_OR_BLISTERS),
            (CULPRIT_DRUG, MUCOSAL_OR_BLISTERS, FEVER),
            (CULPRIT_DRUG, RASH, SYSTEMIC_DRUG_RASH),
        ),
        PatientAdvice(
            "A rash with blisters, mouth sores or sore eyes after starting a new medicine",
            "Go to A&E now and take the medicine with you: a blistering rash with mouth or eye "
            "sores after a new medicine can be a serious drug reaction.",
        ),
    ),
    RedFlagRule(
        "metformin_lactic_acidosis",
        "A lactate of 5 or more, or a lactic acidosis, in a patient on metformin",
        ("metformin-associated lactic acidosis", "sepsis or tissue ischaemia"),
        "Stop metformin; blood gas, lactate, U&E and glucose; IV fluids; critical care and "
        "early haemodialysis if the acidosis is severe or the kidneys have failed.",
        ((ON_METFORMIN, LACTIC_ACIDOSIS),),
    ),
    RedFlagRule(
        "methaemoglobinaemia",
        "Cyanosis or low saturations that do not rise with oxygen, chocolate-brown blood, or "
        "an oxidising drug (dapsone, nitrites, local anaesthetic) with breathlessness",
        ("methaemoglobinaemia",),
        "Co-oximetry (methaemoglobin level) on a blood gas; high-flow oxygen; stop the drug; "
        "IV methylthioninium chloride (methylene blue) if symptomatic or the level is high, "
        "unless G6PD deficient.",
        (
            (SATURATION_GAP,),
            (SATS_NOT_RISING, any_of(NORMAL_PAO2, OXIDISING_DRUG)),
            (OXIDISING_DRUG, CYANOSED),
        ),
    ),
    RedFlagRule(
        "ace_inhibitor_angioedema",
        "Swelling of the lips, tongue or face without hives in a patient on an ACE inhibitor",
        (
            "ACE inhibitor (bradykinin) angioedema with airway compromise",
            "anaphylaxis",
        ),
        "Assess the airway now (voice, stridor, tongue); senior anaesthetic help if it is "
        "involved; stop the ACE inhibitor for good; adrenaline if anaphylaxis is possible, "
        "but antihistamines and steroids do not treat this swelling; observe for hours.",
        ((ACE_INHIBITOR, FACE_SWELLING),),
        PatientAdvice(
            "A swollen lip, tongue or face while taking an ACE inhibitor (ramipril, lisinopril)",
            "Call 999 if your breathing or voice is affected, otherwise go to A&E now: this "
            "medicine can cause swelling that blocks the airway.",
        ),
    ),
    RedFlagRule(
        "salicylate_poisoning",
        "Ringing in the ears with vomiting or fast breathing, or a mixed respiratory alkalosis "
        "and metabolic acidosis",
        ("salicylate poisoning (aspirin)",),
        "Salicylate and paracetamol levels (repeat at 2–4 hours), blood gas, U&E, glucose; "
        "activated charcoal within an hour; IV sodium bicarbonate for urinary alkalinisation; "
        "haemodialysis for severe poisoning; a poisons service.",
        (
            (TINNITUS, FAST_DEEP_BREATHING),
            (TINNITUS, VOMITING, r"\baspirin\b|salicylate|tablets|overdos\w+|panic"),
            (
                r"(?:took|taken|swallowed|suspected|deliberate) (?:an? )?(?:\w+ )?"
                r"(?:aspirin|salicylate)s? overdose|overdose of (?:\w+ )?(?:aspirin|salicylates?)",
            ),
        ),
    ),
    RedFlagRule(
        "tricyclic_overdose",
        "A tricyclic antidepressant taken in overdose, or a drowsy poisoned patient with a "
        "broad QRS or a seizure",
        ("tricyclic antidepressant overdose (arrhythmia, seizures, coma)",),
        "Airway and cardiac monitoring; 12-lead ECG (QRS width, R wave in aVR); IV sodium "
        "bicarbonate for a QRS over 100 ms, arrhythmia or hypotension; benzodiazepines for "
        "seizures; a poisons service.",
        ((TRICYCLIC, POISONED), (POISONED, SODIUM_CHANNEL_BLOCK, r"\bqrs\b|\bavr\b")),
    ),
)

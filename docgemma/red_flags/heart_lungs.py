"""Rows of the red-flag table: chest pain, breathlessness, the airway and very high blood
pressure."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    BP_WORDS,
    BREATHLESS,
    CHEST_PAIN,
    CHEST_PAIN_FEATURE,
    CONFUSED,
    FEVER,
    HEADACHE,
    HYPOTENSION,
    HYPOXIA,
    LONG_AGO,
    POST_OP,
    RADIATION,
    RESP_RATE,
    SEIZURE,
    SEVERE,
    SUDDEN,
    SWEATING,
    SYNCOPE,
    TACHYCARDIA,
    WHEEZE,
    any_of,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule

ALLERGEN = any_of(
    r"\bstung\b|\bsting\b|\bbees?\b|\bwasps?\b",
    r"peanuts?|\bnuts?\b|shellfish",
    r"after (?:eating|food)|allergic reaction|\bpenicillin\b|\bcontrast\b",
)
SWOLLEN_AIRWAY = any_of(
    r"(?:throat|tongue|lips?|mouth|face) (?:is |are |feels? )?(?:swell(?:ing|ed|s)?|swollen"
    r"|closing|tight)",
    r"swollen (?:throat|tongue|lips?)|(?:tongue|lip|laryngeal) (?:o)?edema|angio-?o?edema",
    r"swelling of (?:my|his|her|the) (?:throat|tongue|lips?)",
)
FLOOR_OF_MOUTH = any_of(
    r"floor of (?:the |his |her )?mouth (?:\w+ ){0,3}(?:swell\w*|swollen|raised|hard|firm|woody"
    r"|tense|indurated)",
    r"tongue (?:is )?(?:pushed|raised|elevated|lifted) (?:up|back)",
    r"swelling under (?:\w+ ){0,2}jaw on both sides|bilateral submandibular swelling",
)
"""A swollen, hard floor of the mouth lifting the tongue: a spreading infection that closes
the airway from below."""
OBSTRUCTED_AIRWAYS = r"\basthma\w*|\bcopd\b|\bwheez\w+|\bbronchospasm\b"
TIRING = any_of(
    CONFUSED,
    r"(?:only )?(?:managing|saying|speaking|talking in) (?:a word or two|single words|one word)"
    r"|\bmonosyllab\w+",
    r"\bpco2\s*(?:of|is|was|:|=)?\s*(?:[6-9]|1\d)(?:\.\d)? ?kpa|\bpco2\s*(?:of|is|was|:|=)?\s*"
    r"(?:4[5-9]|[5-9]\d) ?mm ?hg|\bhypercapni\w+|\bco2 retention",
    r"peak flow (?:wouldn't|won't|can't|couldn't|unable to|didn't) (?:\w+ )?(?:record|register"
    r"|read)|\bexhaust\w+|\btiring\b|\btired out\b",
    r"can't hear (?:any )?wheez\w*|wheez\w* (?:has |have )?(?:gone|stopped|disappeared)",
    RESP_RATE + r"(?:[4-9]|10)(?!\.?\d)",
)
"""An attack wearing the patient out: drowsy, a word at a time, CO2 rising, breathing
slowing, the wheeze fading as air stops moving."""
ATTACK = any_of(
    r"\battack\b|\bexacerbation\b|\bflare\b|\bnebs?\b|\bnebuli[sz]\w+|back-to-back|\bresus\b",
    r"\bwheezy\b|\bwheezing\b|\bsalbutamol\b|\bbreathless\w*|\bsob\b|can't breathe",
)
"""An attack under way, not a review of stable disease."""
FAST_BREATHING = any_of(
    BREATHLESS,
    RESP_RATE + r"(?:2[2-9]|[3-6]\d)(?!\.?\d)",
    TACHYCARDIA,
)
"""Breathing 22 a minute or faster, or a fast heart."""
VERY_HIGH_BP = any_of(
    BP_WORDS + r"(?:1[89]\d|2\d\d)\s*(?:/|over)\s*\d{2,3}\b",
    BP_WORDS + r"\d{2,3}\s*(?:/|over)\s*1[2-9]\d\b",
)
"""180/120 mmHg or more."""
END_ORGAN = any_of(
    rf"(?:{SEVERE}|\bsudden\w*|thunderclap)\W+(?:\w+\W+){{0,2}}?(?:{HEADACHE})",
    CHEST_PAIN,
    BREATHLESS,
    CONFUSED,
    SEIZURE,
    r"(?:blurred|blurry|loss of|double|changes? (?:in|to)) (?:my |his |her )?(?:vision|sight)"
    r"|visual (?:disturbance|loss|changes)|can't see properly",
    r"papill(?:o)?edema|retinal ha?emorrhages?|flame ha?emorrhages?|pulmonary o?edema",
    r"\b(?:aki|acute kidney injury)\b|haematuria|hematuria|weakness|numbness",
)
"""Symptoms or signs of damage to the brain, eyes, heart or kidneys. A headache counts when
it is severe or sudden: a mild one beside a high reading calls for a review the same day,
not an emergency."""
ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "hypertensive_emergency",
        "Blood pressure of 180/120 mmHg or more with headache, chest pain, breathlessness, "
        "confusion, visual change or papilloedema",
        (
            "aortic dissection",
            "intracranial haemorrhage or hypertensive encephalopathy",
            "acute coronary syndrome or acute pulmonary oedema",
            "pre-eclampsia (if pregnant or recently delivered)",
            "acute kidney injury",
        ),
        "Look for end-organ damage now: fundoscopy, neurological examination, ECG, troponin, "
        "creatinine and urine dipstick, chest X-ray, CT head if neurological signs; pregnancy "
        "test in women of child-bearing age; admit for IV antihypertensive treatment (e.g. "
        "labetalol, GTN if pulmonary oedema) lowering mean arterial pressure by no more than "
        "25% in the first hours — faster only for aortic dissection.",
        ((VERY_HIGH_BP, END_ORGAN),),
        PatientAdvice(
            "A very high blood pressure reading with a headache, chest pain, breathlessness or "
            "changes in sight",
            "Call 999 or go to A&E now: a blood pressure this high with these symptoms can be "
            "damaging the brain, heart or kidneys.",
        ),
    ),
    RedFlagRule(
        "post_op_deterioration",
        "Breathlessness, hypoxia, hypotension or tachycardia after an operation",
        (
            "pulmonary embolism",
            "haemorrhage (surgical site or gastrointestinal)",
            "sepsis (anastomotic leak, pneumonia, wound)",
            "myocardial infarction",
        ),
        "ABCDE with high-flow oxygen; two large-bore cannulae with FBC, crossmatch, lactate, "
        "blood cultures and troponin; ECG; fluid bolus; senior surgical review now; CT "
        "pulmonary angiogram once stable, or theatre if bleeding.",
        (
            (
                POST_OP,
                any_of(BREATHLESS, HYPOXIA, HYPOTENSION, TACHYCARDIA, SYNCOPE, CHEST_PAIN),
                Absent(LONG_AGO),
            ),
            (POST_OP, FEVER, FAST_BREATHING, Absent(LONG_AGO)),
        ),
        PatientAdvice(
            "Breathless, faint or very unwell after an operation",
            "Call 999 or go to A&E now: becoming breathless, faint or very unwell after an "
            "operation can be a blood clot, bleeding or an infection.",
        ),
    ),
    RedFlagRule(
        "chest_pain_breathless",
        "Acute chest pain with breathlessness, sweating, radiation or haemodynamic compromise",
        (
            "acute coronary syndrome (including spontaneous coronary artery dissection)",
            "pulmonary embolism",
            "aortic dissection",
            "tension pneumothorax",
        ),
        "12-lead ECG within 10 minutes and troponin; aspirin 300 mg unless dissection is "
        "suspected; compare blood pressure in both arms; oxygen only if SpO2 is below 94%; "
        "CT pulmonary angiogram or CT aortogram as the picture points.",
        (
            (CHEST_PAIN, BREATHLESS),
            (CHEST_PAIN, any_of(SWEATING, RADIATION)),
            (CHEST_PAIN, any_of(HYPOTENSION, TACHYCARDIA, HYPOXIA, SYNCOPE)),
            (CHEST_PAIN, CHEST_PAIN_FEATURE),
        ),
        PatientAdvice(
            "Chest pain with breathlessness, sweating or pain spreading to the arm or jaw",
            "Call 999 now: chest pain with these symptoms can be a heart attack.",
        ),
    ),
    RedFlagRule(
        "tearing_pain",
        "Tearing chest or back pain, or a pulse or blood-pressure difference between the arms",
        ("aortic dissection", "spinal cord infarction or limb ischaemia from the dissection"),
        "Blood pressure in both arms and urgent CT aortogram; no thrombolysis or "
        "anticoagulation until dissection is excluded; IV beta-blocker towards a systolic of "
        "100–120 mmHg; cardiothoracic or vascular surgery at once.",
        (
            (
                r"\b(?:tearing|ripping)\b|like (?:something|it) (?:had |has )?(?:ripped|torn"
                r"|tore)\b",
            ),
            (
                CHEST_PAIN,
                r"(?:in)?to (?:the |my |his |her )?back|between (?:the |my |his |her )?"
                r"shoulder ?blades",
            ),
            (
                r"(?:pulse|bp|blood pressure) (?:deficit|differen\w+)|unequal (?:pulses|bp|blood "
                r"pressures?)",
            ),
            (
                any_of(SUDDEN, SEVERE),
                r"interscapular|between (?:the |my |his |her )?shoulder ?blades",
                r"(?:can't|couldn't|unable to) move (?:his |her |their |my )?legs|\bparaplegi\w+"
                r"|\bparaparesis\b|legs (?:went|gone|are) (?:weak|numb|dead)|\bsyncop\w*"
                r"|\bcollaps\w+",
            ),
        ),
        PatientAdvice(
            "Sudden tearing pain in the chest or back",
            "Call 999 now: a sudden tearing pain in the chest or back can be a tear in the main "
            "artery of the body.",
        ),
    ),
    RedFlagRule(
        "acute_breathlessness",
        "Acute breathlessness with hypoxia, tachycardia, hypotension, pleuritic pain or "
        "haemoptysis",
        (
            "pulmonary embolism",
            "tension pneumothorax",
            "acute coronary syndrome or acute heart failure",
            "sepsis from pneumonia",
        ),
        "ABCDE; oxygen to SpO2 94–98% (88–92% if at risk of CO2 retention); ECG, arterial blood "
        "gas and chest X-ray; Wells score and CT pulmonary angiogram if PE is possible, with "
        "anticoagulation while waiting unless contraindicated.",
        (
            (BREATHLESS, any_of(HYPOXIA, TACHYCARDIA, HYPOTENSION)),
            (BREATHLESS, r"pleuritic|hurts to breathe|pain (?:on|when) breathing"),
            (BREATHLESS, r"haemoptysis|hemoptysis|cough(?:ing|ed)? (?:up )?blood"),
            (BREATHLESS, SUDDEN),
            (
                HYPOXIA,
                RESP_RATE + r"(?:2[4-9]|[3-6]\d)(?!\.?\d)",
                Absent(r"\bbaseline\b|chronic(?:ally)? hypox\w+|\bhome oxygen\b|\bltot\b"),
            ),
        ),
        PatientAdvice(
            "Sudden breathlessness, or breathlessness with chest pain on breathing or coughing "
            "up blood",
            "Call 999 or go to A&E now: sudden breathlessness can be a blood clot in the lung "
            "or a collapsed lung.",
        ),
    ),
    RedFlagRule(
        "tension_pneumothorax",
        "Chest trauma or ventilation with hypotension, hypoxia, tracheal deviation or absent "
        "breath sounds",
        ("tension pneumothorax", "massive haemothorax", "cardiac tamponade"),
        "Needle decompression (second intercostal space mid-clavicular line, or fourth/fifth "
        "space anterior to the mid-axillary line) without waiting for an X-ray, then a chest "
        "drain; large-bore access and trauma team.",
        (
            (r"trachea\w* (?:is )?deviat\w+|tracheal shift",),
            (
                r"(?:absent|reduced|no) (?:breath|air entry)\w*|hyper-?resonan\w+"
                r"|(?:breath sounds|air entry) (?:is |are )?(?:absent|reduced|diminished"
                r"|decreased)",
                any_of(HYPOTENSION, HYPOXIA, TACHYCARDIA),
            ),
            (
                r"(?:stab(?:bed)?|penetrating|blunt) (?:wound |injury |trauma )?(?:to |in |of )?"
                r"(?:the |my |his |her )?chest|chest (?:trauma|injury|wound)",
                any_of(BREATHLESS, HYPOTENSION, HYPOXIA),
            ),
        ),
        PatientAdvice(
            "An injury to the chest with trouble breathing",
            "Call 999 now: an injury to the chest with trouble breathing needs emergency help.",
        ),
    ),
    RedFlagRule(
        "anaphylaxis",
        "Airway swelling, wheeze or hypotension after an allergen",
        ("anaphylaxis", "angio-oedema with airway compromise"),
        "IM adrenaline 0.5 mg (0.5 mL of 1 mg/mL) into the anterolateral thigh, repeated after "
        "5 minutes if no better; lie flat with legs raised (sit up if breathing is worse), "
        "high-flow oxygen, IV fluid bolus; call for help.",
        (
            (SWOLLEN_AIRWAY,),
            (ALLERGEN, any_of(BREATHLESS, WHEEZE, HYPOTENSION)),
            (r"urticaria|\bhives\b|widespread rash", any_of(WHEEZE, HYPOTENSION, SWOLLEN_AIRWAY)),
        ),
        PatientAdvice(
            "Possible anaphylaxis: a swelling throat or tongue, or breathing trouble after a "
            "sting or food",
            "Call 999 now; use an adrenaline auto-injector if one has been prescribed.",
        ),
    ),
    RedFlagRule(
        "upper_airway",
        "Stridor, drooling, a muffled voice or being unable to swallow saliva",
        (
            "epiglottitis or bacterial tracheitis",
            "deep neck space infection (peritonsillar abscess or quinsy, retropharyngeal abscess, "
            "Ludwig's angina)",
            "upper airway obstruction",
        ),
        "Keep the patient upright and calm and do not examine the throat; senior anaesthetic "
        "and ENT airway help now; oxygen; IV antibiotics once the airway is secure.",
        (
            (
                r"\bstridor\b|\bdrool\w*\b(?! (?:from|out of) (?:the )?(?:l |r |left |right |one "
                r"|corner))"
                r"|muffled voice|hot potato voice|\btrismus\b",
            ),
            (r"(?:can't|unable to|not able to) swallow (?:\w+ ){0,2}(?:saliva|spit|secretions)",),
            (FLOOR_OF_MOUTH,),
            (
                r"voice (?:is |sounds )?muffled",
                r"sore throat|\bdysphagi\w+|(?:pain|painful) (?:on|to)"
                r" swallow\w*|sitting forward|\btripod\w*",
            ),
        ),
        PatientAdvice(
            "Noisy breathing, drooling or being unable to swallow",
            "Call 999 now: noisy breathing, drooling or being unable to swallow can mean the "
            "airway is closing.",
        ),
    ),
    RedFlagRule(
        "severe_breathing",
        "Severe respiratory distress: cyanosis, a silent chest, unable to speak in sentences",
        (
            "life-threatening asthma or COPD exacerbation",
            "upper airway obstruction",
            "tension pneumothorax",
            "anaphylaxis",
        ),
        "ABCDE with high-flow oxygen and senior help now; nebulised salbutamol and "
        "ipratropium if wheezy, IV magnesium and steroids in severe asthma; needle "
        "decompression if tension pneumothorax.",
        (
            (
                any_of(
                    r"can't breathe|struggling to breathe|gasping|choking",
                    r"blue lips|lips (?:are |have |look )?(?:turning |going |gone |went |turned )?"
                    r"blue|\bcyanos\w+|\bcyanotic\b",
                    r"silent chest|can't (?:complete|finish) (?:a )?sentences?"
                    r"|unable to (?:speak|talk) in (?:full )?sentences",
                ),
            ),
            (
                OBSTRUCTED_AIRWAYS,
                ATTACK,
                TIRING,
                Absent(r"\bretainer\b|chronic(?:ally)? hypercap\w+"),
            ),
        ),
        PatientAdvice(
            "Severe difficulty breathing or blue lips",
            "Call 999 now: severe difficulty breathing needs emergency help.",
        ),
    ),
)

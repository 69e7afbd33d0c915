"""Rows of the red-flag table: the kidneys (a nephritic kidney injury, alone or with bleeding
into the lungs; muscle breakdown; a bladder that cannot empty; the renal crisis of
scleroderma)."""

from __future__ import annotations

from docgemma.red_flags.cues import BP_WORDS, CONFUSED, HAEMOPTYSIS, any_of
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule

RED_CELL_CASTS = (
    r"\bred (?:blood )?cell casts?\b|\brbc casts?\b|\bdysmorphic red (?:blood )?cells\b"
    r"|\bglomerular ha?ematuria\b"
)
"""Blood from the glomeruli: glomerulonephritis."""
KIDNEY_INJURY = any_of(
    r"\baki\b|acute kidney injury|acute renal failure|rapidly progressive renal failure",
    r"creatinine (?:is |has )?(?:rising|rapidly rising|doubled|tripled|climbing)",
    r"\b(?:creatinine|creat)\s*(?:of|is|was|:|=|now)?\s*(?:[3-9]\d\d|[1-9]\d{3})(?!\.?\d)",
)
"""A kidney injury, or a creatinine of 300 µmol/L or more."""
HAEMATURIA = any_of(
    r"\bha?ematuria\b",
    r"\bblood (?:[1-4] ?\+|\+{1,4})(?!\w)",
    r"\b(?:dip|dipstick|urinalysis|urine dip\w*)(?: \w+){0,2} blood\b|\bblood (?:and protein )?"
    r"(?:on|in) (?:the )?(?:urine|dip\w*)",
)
NEPHRITIC_OR_VASCULITIC = any_of(
    r"\bproteinuri\w+|\bprotein (?:[1-4] ?\+|\+{1,4})(?!\w)",
    HAEMOPTYSIS,
    r"\bnose ?bleeds?\b|\bepistax\w+|\bsinusitis\b|\bcrust\w* (?:in|of) (?:the |his |her )?nose",
    r"\bpurpur\w+|\bvasculitic rash\b|\banca\b|\banti-?gbm\b|\blupus\b|\bsle\b",
)
"""What else a glomerulonephritis or a small-vessel vasculitis brings."""
CK_VERY_HIGH = (
    r"\b(?:ck|creatine kinase|cpk)\s*(?:of|is|was|:|=|>)?\s*(?:[5-9]\d{3}|[1-9]\d{4,}"
    r"|[5-9][, ]\d{3}|[1-9]\d{1,2}[, ]\d{3})(?!\.?\d)"
)
"""A creatine kinase of 5,000 U/L or more."""
LONG_LIE = any_of(
    r"\b(?:found|lying|lain|lay|was|been) (?:\w+ ){0,3}on the (?:floor"
    r"|ground)\b[^.;]{0,60}?\b(?:hours|overnight|all night|\d+ ?h\b|days?)",
    r"\blong lie\b|\bdown (?:for )?(?:\d+|several|many)(?:-\d+)? ?(?:h|hrs?|hours)\b",
)
PIGMENTED_URINE = any_of(
    r"(?:urine|wee|pee)\b[^.;]{0,20}?\b(?:dark|brown|cola|tea)",
    r"\b(?:dark|brown|cola|tea)[- ]colou?red (?:urine|wee)",
    r"\bmyoglobinuri\w+|dip\w*\b[^.;]{0,15}\bblood\b[^.;]{0,40}?\bno (?:rbcs?|red cells)",
)
RETENTION = any_of(
    r"\b(?:palpable|distended|enlarged|full) bladder|\bdull to percussion\b[^.;]{0,40}"
    r"(?:umbilicus|pubis|suprapubic)",
    r"\bdribbl\w+ (?:small amounts|all day|constantly|continuously)|overflow incontinence",
    r"\b(?:bladder scan|residual|pvr)\b[^.;]{0,20}?\b(?:[5-9]\d\d|\d{4}) ?ml",
    r"(?:can't|unable to|hasn't|has not|not) (?:\w+ ){0,2}(?:pass(?:ed)?|passing) (?:urine|water)"
    r"|\bcan't (?:pee|wee)\b",
)
"""A bladder that cannot empty: felt or percussed above the pubis, dribbling, a large scan."""
RETENTION_HARM = any_of(
    CONFUSED,
    r"\b(?:creatinine|creat|cr)\s*(?:of|is|was|:|=|now)?\s*(?:1[5-9]\d|[2-9]\d\d"
    r"|[2-9](?:\.\d+)? ?mg/dl)|\baki\b|kidney injury|\banticholinergic|\boxybutynin\b"
    r"|\bsolifenacin\b|\btolterodine\b|\bamitriptyline\b",
    r"(?:lower )?(?:tummy|abdo\w*|suprapubic) (?:pain|discomfort)",
)
SCLERODERMA = r"\bsystemic sclerosis\b|\bscleroderma\b|\b(?:dc|lc)?ssc\b"
HIGH_BP_OR_AKI = any_of(
    BP_WORDS
    + r"(?:1[6-9]\d|2\d\d)\s*(?:/|over)\s*\d{2,3}\b(?![^.;]{0,20}\b(?:baseline|usual|stable))",
    r"\b(?:creatinine|creat|cr)\b[^.;]{0,25}?\((?:was|baseline)|\b(?:creatinine|creat"
    r"|cr) \d+ (?:from|up from) \d+|creatinine (?:rising|doubled|climbing)",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "nephritic_kidney_injury",
        "Red cell casts, or a kidney injury with haematuria and proteinuria, haemoptysis, "
        "nosebleeds or a purpuric rash",
        (
            "rapidly progressive glomerulonephritis (ANCA-associated vasculitis, anti-GBM "
            "disease, lupus nephritis)",
            "pulmonary haemorrhage (pulmonary-renal syndrome)",
            "hyperkalaemia and fluid overload needing dialysis",
        ),
        "Same-day renal referral; potassium, U&E and a blood gas now; urine microscopy and "
        "protein:creatinine ratio; ANCA (MPO, PR3), anti-GBM antibodies, complement, ANA and "
        "dsDNA, immunoglobulins, blood film; chest X-ray and oxygen saturation for pulmonary "
        "haemorrhage; renal biopsy; high-dose IV methylprednisolone (with plasma exchange for "
        "anti-GBM disease or pulmonary haemorrhage) without waiting for the biopsy when the "
        "picture is clear.",
        (
            (RED_CELL_CASTS,),
            (KIDNEY_INJURY, HAEMATURIA, NEPHRITIC_OR_VASCULITIC),
            (HAEMOPTYSIS, any_of(KIDNEY_INJURY, HAEMATURIA)),
        ),
    ),
    RedFlagRule(
        "rhabdomyolysis",
        "A creatine kinase of 5,000 U/L or more, or a long lie on the floor with dark urine",
        ("rhabdomyolysis", "acute kidney injury and hyperkalaemia", "compartment syndrome"),
        "Admit; IV fluids aiming for a urine output of 200-300 mL/h as the heart allows; "
        "potassium and ECG; creatinine, calcium, phosphate; repeat CK; examine every limb "
        "compartment; find the cause (fall, drugs, seizure, infection).",
        (
            (CK_VERY_HIGH,),
            (LONG_LIE, PIGMENTED_URINE),
        ),
    ),
    RedFlagRule(
        "urinary_retention",
        "A bladder felt or percussed above the pubis, or dribbling, with confusion, lower "
        "abdominal pain, a rising creatinine or an anticholinergic drug",
        ("acute (or acute-on-chronic) urinary retention", "obstructive acute kidney injury"),
        "Bladder scan and catheterise now (measure the residual); U&E and potassium; stop "
        "anticholinergic and other causative drugs; watch for a diuresis after relief; find "
        "the cause (prostate, constipation, cord compression).",
        ((RETENTION, RETENTION_HARM),),
        PatientAdvice(
            "Unable to pass urine with a painful, swollen lower tummy",
            "Go to A&E now: a bladder that cannot empty needs a catheter.",
        ),
    ),
    RedFlagRule(
        "scleroderma_renal_crisis",
        "Systemic sclerosis with a new high blood pressure or a kidney injury (especially "
        "after starting steroids)",
        ("scleroderma renal crisis", "thrombotic microangiopathy"),
        "Same-day renal admission; an ACE inhibitor (captopril, titrated up) at once, even "
        "with a kidney injury; creatinine, blood film for fragments, LDH, platelets, urine; "
        "stop or reduce steroids.",
        ((SCLERODERMA, HIGH_BP_OR_AKI),),
    ),
)

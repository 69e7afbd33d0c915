"""Rows of the red-flag table: blood cancers and their treatment (leukaemia on the film or
count, and tumour lysis once treatment starts)."""

from __future__ import annotations

from docgemma.red_flags.cues import any_of
from docgemma.red_flags.rule import RedFlagRule

NUMBER_AFTER = r"\s*(?:level\s*)?(?:of|is|was|at|now|:|=)?\s*"
CHEMOTHERAPY = (
    r"\bchemo\w*|\br-?chop\b|\bchop\b|\b(?:first|second|1st|2nd) cycle\b|\bcycle (?:one|1)\b"
    r"|\binduction\b|\bvenetoclax\b|\bcytotoxic\b"
)
BLOOD_CANCER = (
    r"\blymphoma\b|\bleuka?emia\b|\bdlbcl\b|\bburkitt\w*|\bmyeloma\b|\bcll\b|\baml\b"
    r"|\blymphoblastic\b"
)
HIGH_PHOSPHATE = (
    r"\b(?:phosphate|po4|phos)" + NUMBER_AFTER + r"(?:(?:1\.[5-9]\d*|[2-4](?:\.\d+)?)(?!\.?\d)"
    r"(?!\s*mg)|(?:[5-9]|1\d)(?:\.\d+)?\s*mg/dl)|\bhyperphosphata?emi\w*"
)
"""Phosphate 1.5 mmol/L (4.5 mg/dL) or more."""
HIGH_URATE = (
    r"\b(?:urate|uric acid)" + NUMBER_AFTER + r"(?:0\.[5-9]\d*(?!\.?\d)|[5-9]\d\d(?!\.?\d)"
    r"|(?:[89]|1\d)(?:\.\d+)?\s*mg/dl)|\bhyperuricaemi\w*|\bhyperuricemi\w*"
)
"""Urate 0.5 mmol/L (500 µmol/L, 8 mg/dL) or more."""
HIGH_POTASSIUM = (
    r"\b(?:k\+?|potassium)" + NUMBER_AFTER + r"(?:6(?:\.\d+)?|[7-9](?:\.\d+)?)(?!\.?\d)"
)
LOW_CALCIUM = (
    r"(?<!ionised )(?<!ionized )\b(?:adjusted |corrected )?(?:ca(?:2\+|\+\+)?|calcium)"
    + NUMBER_AFTER
    + r"(?:1\.[0-8]\d*|0\.\d+)(?!\.?\d)"
)
KIDNEY_INJURY = (
    r"\baki\b|acute kidney injury|creatinine (?:is |has )?(?:rising|doubled|tripled|climbing"
    r"|up)|(?:oliguri\w+|anuri\w+)"
)

PARAPROTEIN = (
    r"\bparaprotein\w*|\bigm\b|\bwaldenstr\w+|\bmyeloma\b|\bmgus\b|\bhyperviscosity\b"
    r"|\bleukostasis\b"
)
VISCOSITY_SIGNS = any_of(
    r"blurred vision|visual (?:blurring|disturbance)|'sausage' veins|sausage veins|retinal "
    r"(?:vein|haemorrhages?)|blot haemorrhages",
    r"\bnose ?bleeds?\b|\bepistax\w+|bleeding gums",
    r"\bconfus\w+\b|\bdrows\w+|\bheadaches?\b",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "acute_leukaemia_signs",
        "Blasts on the blood film, or a white cell count of 100 × 10⁹/L or more",
        (
            "acute leukaemia (acute promyelocytic leukaemia with disseminated intravascular "
            "coagulation, DIC)",
            "leukostasis",
            "tumour lysis syndrome",
            "neutropenic sepsis",
        ),
        "Same-day haematology; blood film, clotting with fibrinogen (start ATRA at once if "
        "acute promyelocytic leukaemia is suspected), urate, LDH, U&E, phosphate, calcium; IV "
        "fluids and allopurinol or rasburicase against tumour lysis; avoid red-cell "
        "transfusion in leukostasis unless essential; treat any fever as neutropenic sepsis.",
        (
            (
                r"\bblasts? (?:on|in|seen on) (?:the |a )?(?:blood |peripheral )?film"
                r"|circulating blasts|\bblast cells\b|peripheral blasts",
            ),
            (
                r"\b(?:wcc|wbc|white (?:cell|blood cell) count|white count)\s*(?:of|is|was|:|=)?"
                r"\s*[1-9]\d{2}(?![,\d])(?:\.\d+)?",
            ),
            (
                r"\bbruis\w+|\bpetechi\w+",
                r"\bpale\b|\bpallor\b|\btired\w*|\bletharg\w+",
                r"(?:bone|leg|back) pain|pain in (?:\w+ ){0,2}(?:legs|bones)|(?:lymph )?nodes"
                r"|\bglands\b|lymphadenopath\w+|splenomegal\w*|hepatosplenomegal\w*|big spleen",
            ),
            (
                r"\bfibrinogen\s*(?:of|is|was|:|=)?\s*(?:0\.\d+|1\.[0-4]\d*)(?!\.?\d)",
                r"\b(?:plt|platelets?)\s*(?:of|is|was|:|=)?\s*(?:[1-9]|[1-4]\d)(?!\.?\d)",
            ),
        ),
    ),
    RedFlagRule(
        "tumour_lysis",
        "High phosphate or urate with a blood cancer, or high potassium, low calcium or a "
        "kidney injury after starting chemotherapy",
        (
            "tumour lysis syndrome",
            "life-threatening arrhythmia from hyperkalaemia",
            "acute kidney injury (urate or calcium phosphate nephropathy)",
        ),
        "ECG and cardiac monitoring; treat hyperkalaemia now (IV calcium gluconate if the ECG "
        "is changed, insulin with glucose); IV fluids to a high urine output unless oliguric; "
        "rasburicase (check G6PD first) rather than allopurinol; IV calcium only for "
        "symptomatic hypocalcaemia (tetany, seizures, arrhythmia), as it can precipitate with "
        "phosphate; U&E, phosphate, calcium, urate and LDH every 4–6 hours; haematology and "
        "renal teams now — dialysis for refractory hyperkalaemia, fluid overload or oliguria.",
        (
            (any_of(CHEMOTHERAPY, BLOOD_CANCER), any_of(HIGH_PHOSPHATE, HIGH_URATE)),
            (CHEMOTHERAPY, any_of(HIGH_POTASSIUM, LOW_CALCIUM, KIDNEY_INJURY)),
            (
                CHEMOTHERAPY,
                BLOOD_CANCER,
                any_of(
                    r"\bcramps?\b|\btetany\b|tingling (?:round|around) (?:his |her |the )?mouth",
                    r"urine output (?:\w+ )?(?:[0-9]|1\d|2[0-9]) ?ml|irregular (?:beats|heartbeat"
                    r"|pulse)",
                ),
            ),
        ),
    ),
    RedFlagRule(
        "hyperviscosity",
        "A paraprotein (Waldenström, myeloma) with blurred vision, nosebleeds, headache or "
        "confusion",
        ("hyperviscosity syndrome", "stroke or retinal vein occlusion"),
        "Same-day haematology for plasma exchange; serum viscosity and immunoglobulins; avoid "
        "red-cell transfusion until the viscosity is down; fundoscopy.",
        ((PARAPROTEIN, VISCOSITY_SIGNS),),
    ),
)

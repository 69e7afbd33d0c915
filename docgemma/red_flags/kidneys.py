"""Rows of the red-flag table: the kidneys (a nephritic kidney injury, alone or with bleeding
into the lungs)."""

from __future__ import annotations

from docgemma.red_flags.cues import HAEMOPTYSIS, any_of
from docgemma.red_flags.rule import RedFlagRule

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
)

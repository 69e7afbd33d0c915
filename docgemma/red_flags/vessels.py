"""Rows of the red-flag table for the great vessels: an abdominal aortic aneurysm taken for
renal colic, a gut bleed from an aortic graft, and a blocked superior vena cava."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ABDO_PAIN,
    BACK_PAIN,
    CANCER,
    HYPOTENSION,
    OLDER_ADULT,
    SYNCOPE,
    UPPER_GI_BLEED,
    any_of,
)
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule

GUT_BLEED = any_of(
    UPPER_GI_BLEED,
    r"\bha?ematochezia\b|\bpr bleed\w*|\bblack,? (?:and )?tarry|\btarry (?:black )?stools",
    r"\b(?:fresh )?pr blood|\bgi bleed\w*",
)
AORTIC_GRAFT = any_of(
    r"\b(?:aortic|aorto-?\w+|dacron|vascular|endovascular) (?:stent )?graft",
    r"\b(?:aneurysm|aaa|aortic) (?:repair|surgery|reconstruction)|\bevar\b|aorto-?bi-?femoral"
    r"|\baaa repair\b",
)
"""An aorta repaired with a graft, open or by a stent."""
FACE_NECK_SWELLING = any_of(
    r"(?:face|facial|neck|face and neck|eyelid|periorbital) (?:\w+ ){0,2}(?:swelling|swollen"
    r"|puffy|puffiness|oedema|edema|plethora|fullness)",
    r"swelling of (?:the |his |her )?(?:face|neck)|(?:shirt )?collar (?:is |feels )?tight",
    r"(?:puffy|swollen|plethoric) (?:face|neck)",
)
DILATED_CHEST_VEINS = any_of(
    r"(?:distended|dilated|prominent|engorged|visible) (?:\w+ ){0,2}veins (?:\w+ ){0,3}(?:chest"
    r"|neck|chest wall)",
    r"(?:chest wall|neck|chest) veins (?:are |look )?(?:distended|dilated|prominent|engorged)",
    r"non-?pulsatile (?:raised )?jvp|(?:distended|dilated|engorged|prominent) (?:neck|chest wall"
    r"|chest) veins|\bcollateral veins\b",
    r"mediastinal (?:mass|widening|lymphadenopathy)|\b(?:r|l|right|left) upper mediastin\w+ mass",
)
"""Veins of the chest and neck that cannot drain, or a mass in the mediastinum."""

RENAL_COLIC = (
    r"\b(?:renal|ureteric|kidney|loin) colic|\bloin (?:pain|ache)|\bflank (?:pain|ache)"
    r"|loin to groin"
)
"""Pain read as a kidney stone's."""
KNOWN_ANEURYSM = (
    r"\baaa\b(?! (?:repair|screening (?:was )?normal))|aortic aneurysm|aneurysmal aorta"
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "aortic_aneurysm",
        "Presumed renal colic, loin or back pain in a person over 65, or abdominal or back pain "
        "or collapse in a known aneurysm",
        ("leaking or ruptured abdominal aortic aneurysm", "aortic dissection"),
        "Examine for a pulsatile, tender abdominal mass and compare the femoral pulses; "
        "bedside ultrasound of the aorta before calling it a stone; if hypotensive, accept a "
        "low blood pressure, two large-bore cannulae, crossmatch 6 units and call vascular "
        "surgery now; CT angiogram only if stable.",
        (
            (OLDER_ADULT, RENAL_COLIC),
            (KNOWN_ANEURYSM, any_of(ABDO_PAIN, BACK_PAIN, SYNCOPE, HYPOTENSION)),
        ),
        PatientAdvice(
            "Back, tummy or side pain over 65, or with a known aneurysm",
            "Call 999 now if you also feel faint or sweaty; otherwise go to A&E now: this pain "
            "can come from a swollen main artery (aneurysm).",
        ),
    ),
    RedFlagRule(
        "aortoenteric_fistula",
        "Haematemesis or melaena in a patient with an aortic graft or aneurysm repair",
        (
            "aortoenteric fistula (a herald bleed before a massive one)",
            "upper gastrointestinal haemorrhage from another cause",
        ),
        "Treat the first bleed as a herald bleed: two large-bore cannulae, crossmatch, "
        "resuscitation; urgent CT angiography and vascular surgery now; endoscopy the same "
        "day, not on a routine list.",
        ((GUT_BLEED, AORTIC_GRAFT),),
    ),
    RedFlagRule(
        "svc_obstruction",
        "Swelling of the face, neck or arms with distended chest or neck veins, or with a "
        "mediastinal mass",
        (
            "superior vena cava obstruction (lung cancer, lymphoma, a thrombosed line)",
            "airway compression by the mass",
        ),
        "Sit upright; stridor or airway compromise is an emergency for the airway team (give "
        "dexamethasone then); otherwise withhold steroids until the biopsy is taken, as they "
        "can mask lymphoma; CT chest with contrast; same-day oncology for stenting or "
        "treatment of the cause.",
        (
            (FACE_NECK_SWELLING, DILATED_CHEST_VEINS),
            (FACE_NECK_SWELLING, CANCER, r"\bbreathless\w*|\bsob\b|\bstridor\b|orthopn\w+"),
        ),
        PatientAdvice(
            "Swelling of the face and neck with swollen veins on the chest",
            "Go to A&E now: swelling of the face and neck with swollen chest veins can mean a "
            "blocked large vein.",
        ),
    ),
)

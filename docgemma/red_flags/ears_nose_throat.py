"""Rows of the red-flag table for the ear, nose and throat: bleeding after a tonsillectomy, a
septal haematoma after a blow to the nose, an ear infection eating into the skull base,
sudden deafness, and a throat infection that has spread into the jugular vein."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    DIABETES,
    FEVER,
    HAEMOPTYSIS,
    HYPOXIA,
    OLDER_ADULT,
    any_of,
)
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule

AFTER_TONSILLECTOMY = (
    r"\b(?:tonsillectomy|adenotonsillectomy|tonsils? (?:out|removed|taken out)|t ?& ?a"
    r"|tonsil bed)\b"
)
BLOOD_FROM_THROAT = any_of(
    r"\bblood (?:in|on) (?:his|her|their|the) (?:spit|saliva|pillow)|\bfresh blood\b",
    r"\b(?:spat|spitting|spits|coughed|coughing|vomited|vomiting|bringing) (?:out |up )?(?:some "
    r"|a bit of |fresh |bright red )*(?:blood|clots?)",
    r"\bbleed\w*|\bblood (?:in|from) (?:his|her|their|the) (?:mouth|throat)|\bha?emorrhag\w+",
)
NOSE_BLOW = any_of(
    r"\b(?:elbow\w*|knee\w*|head(?:-?butt\w*)?|ball|punch\w*|fist|kick\w*|fall|fell|hit|struck)\b"
    r"[^.;]{0,25}?\b(?:to|on|in) (?:the |his |her |my )?nose",
    r"\b(?:nasal|nose) (?:injury|trauma|fracture)|\bbroken nose|\bhit (?:in|on) the nose",
)
SEPTAL_SWELLING = any_of(
    r"\bseptum\b[^.;]{0,40}?\b(?:swollen|swelling|boggy|purple\w*|fluctuant|soft)",
    r"\bseptal (?:swelling|haematoma|hematoma)|swelling of the septum",
    r"(?:completely |totally )?blocked (?:on )?both sides|both nostrils (?:are )?blocked",
)
EAR_INFECTION = any_of(
    r"\bear ?(?:ache|pain)|\botalgia\b|\botitis externa\b|\bear (?:discharge|canal)",
    r"\bdischarg\w+ (?:from|in) (?:the |his |her )?ear",
)
SKULL_BASE_SIGNS = any_of(
    r"\bgranulation tissue\b|\bfacial (?:palsy|weakness|nerve)|\bface drooping|\bside of (?:his"
    r"|her|the) face drooping",
    r"severe,? (?:\w+ ){0,2}(?:at night|night pain)|worse at night|\bnot (?:getting )?better "
    r"(?:after|despite) (?:\w+ ){0,3}(?:drops|antibiotics|courses)",
    r"\b(?:[3-9]|\d{2}) (?:courses of|lots of) (?:\w+ ){0,3}drops",
)
SUDDEN_DEAFNESS = any_of(
    r"\b(?:sudden|suddenly|overnight|woke (?:up )?(?:with|deaf))\b[^.;]{0,40}?\b(?:hearing|deaf\w*"
    r"|(?:can't|cannot) hear)|\bwoke (?:up )?deaf\b|\bsudden snhl\b|\bssnhl\b",
    r"\bwoke (?:up )?(?:\w+ ){0,3}with (?:\w+ ){0,4}(?:hearing (?:muffled|gone|loss|reduced)"
    r"|muffled hearing|blocked|deaf)",
)
SENSORINEURAL = any_of(
    r"\bweber\b[^.;]{0,30}?\b(?:lateralis\w+|lateraliz\w+|goes|louder)",
    r"\b(?:canal|drum|tympanic membrane|ear|tm|otoscopy) (?:and (?:drum|canal) )?(?:looks? |are "
    r"|is )?normal",
    r"\brinne\b[^.;]{0,20}?\bpositive",
)
NECK_VEIN_SIGNS = any_of(
    r"(?:swollen|swelling|tender|painful)[^.;]{0,40}?\b(?:along|over) (?:the )?(?:sterno\w*|scm|"
    r"jugular)",
    r"\b(?:sterno\w*|scm|internal jugular) (?:\w+ ){0,2}(?:tender|swollen|swelling)",
)
THROAT_INFECTION = r"\b(?:tonsillitis|sore throat|pharyngitis|quinsy|glandular fever)\b"

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "post_tonsillectomy_bleed",
        "Any bleeding (blood or clots spat out or swallowed) after a tonsillectomy",
        ("post-tonsillectomy haemorrhage (secondary, often days 5–10)",),
        "Same-day ENT assessment at hospital for every bleed, even if it has stopped; a big "
        "bleed: 999, sit forward, IV access, crossmatch, tranexamic acid, ENT and anaesthetics "
        "for theatre.",
        ((AFTER_TONSILLECTOMY, BLOOD_FROM_THROAT),),
        PatientAdvice(
            "Bleeding from the mouth after having tonsils out",
            "Go to A&E now, even if the bleeding has stopped: bleeding after a tonsillectomy "
            "can come back heavily.",
        ),
    ),
    RedFlagRule(
        "nasal_septal_haematoma",
        "A blow to the nose followed by a swollen, boggy septum or a nose blocked on both sides",
        ("nasal septal haematoma (or abscess)",),
        "Same-day ENT for incision and drainage; do not wait for the fracture review; "
        "antibiotics if infected.",
        ((NOSE_BLOW, SEPTAL_SWELLING),),
    ),
    RedFlagRule(
        "necrotising_otitis_externa",
        "Ear pain or discharge in a person with diabetes, an older or immunocompromised person, "
        "with granulation tissue, a facial palsy, night pain or no response to drops",
        ("necrotising (malignant) otitis externa (skull base osteomyelitis)",),
        "Same-day ENT; CRP and ESR, swab for Pseudomonas, CT or MRI of the skull base; IV "
        "anti-pseudomonal antibiotics; check glucose control.",
        (
            (EAR_INFECTION, any_of(DIABETES, r"immuno\w+"), SKULL_BASE_SIGNS),
            (EAR_INFECTION, OLDER_ADULT, r"\bgranulation tissue\b|\bfacial (?:palsy|weakness)"),
        ),
    ),
    RedFlagRule(
        "sudden_hearing_loss",
        "Sudden hearing loss in one ear with a normal ear canal and drum (or Weber to the "
        "other side)",
        (
            "sudden sensorineural hearing loss",
            "stroke (anterior inferior cerebellar artery) if vertigo or other neurological signs",
        ),
        "Same-day ENT (within 24 hours): audiometry, oral high-dose steroids within 14 days; "
        "MRI of the internal auditory meatus later; neurological examination.",
        ((SUDDEN_DEAFNESS, SENSORINEURAL),),
        PatientAdvice(
            "Sudden loss of hearing in one ear",
            "Get medical help today (an urgent GP or A&E): sudden deafness needs treatment "
            "within days.",
        ),
    ),
    RedFlagRule(
        "lemierre_syndrome",
        "After a sore throat, a fever with a swollen, tender side of the neck, or with "
        "coughing up blood or breathlessness",
        (
            "Lemierre's syndrome (septic thrombophlebitis of the internal jugular vein)",
            "deep neck space infection",
            "sepsis",
        ),
        "Blood cultures and IV antibiotics covering anaerobes (e.g. a beta-lactam with "
        "metronidazole) now; CT neck and chest with contrast; ENT review.",
        (
            (
                THROAT_INFECTION,
                NECK_VEIN_SIGNS,
                any_of(HAEMOPTYSIS, HYPOXIA, r"\brigors?\b|\bseptic\b|\bsepsis\b"),
            ),
            (THROAT_INFECTION, FEVER, HAEMOPTYSIS),
        ),
    ),
)

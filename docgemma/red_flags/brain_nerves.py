"""Rows of the red-flag table: headache, the brain, the spinal cord, the eye and the mind."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ANTICOAGULANT,
    BACK_PAIN,
    CANCER,
    CONFUSED,
    FEVER,
    HEAD_INJURY,
    HEADACHE,
    NECK_STIFF,
    PHOTOPHOBIA,
    SUDDEN,
    any_of,
)
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule
from docgemma.severity import Severity

VISION_LOSS = any_of(
    r"(?:loss of|lost|losing|loses|blurred|blurring of|double) (?:the )?(?:vision|sight)",
    r"(?:vision|sight) (?:loss|went|has gone|is blurred|blurred)",
    r"can't see (?:out of|with)|curtain (?:over|across|coming down)|\bamaurosis\b",
    r"visual (?:loss|disturbance|changes)|\bdiplopia\b",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "thunderclap_headache",
        "Sudden severe (thunderclap) headache",
        (
            "subarachnoid haemorrhage",
            "cerebral venous sinus thrombosis",
            "cervical artery dissection",
            "reversible cerebral vasoconstriction syndrome",
            "pituitary apoplexy",
        ),
        "Urgent non-contrast CT head: within 6 hours of onset a normal scan largely excludes "
        "subarachnoid haemorrhage; after that, lumbar puncture at least 12 hours after onset for "
        "xanthochromia; CT angiography if positive; neurosurgery.",
        (
            (r"thunderclap",),
            (r"worst headache|worst (?:pain|head pain) of (?:my|his|her|their) life",),
            (
                r"(?:sudden(?:ly)?|abrupt(?:ly)?|sudden[- ]onset|explosive|acute)\W+(?:\w+\W+){0,3}"
                r"headache",
            ),
            (
                HEADACHE,
                r"peak(?:ed|ing|s)? (?:with)?in (?:seconds|a minute|one minute|1 minute"
                r"|a few minutes)|like (?:being )?(?:hit|struck|kicked)",
            ),
            (HEADACHE, r"(?:during|after|with|on) (?:exertion|sex|intercourse|straining|coitus)"),
        ),
        PatientAdvice(
            "A sudden, very severe headache",
            "Call 999 or go to A&E now: a sudden, very severe headache can be bleeding around "
            "the brain.",
        ),
    ),
    RedFlagRule(
        "meningitis_signs",
        "Fever or headache with neck stiffness, photophobia or altered consciousness",
        ("bacterial meningitis", "viral (herpes simplex) encephalitis", "subarachnoid haemorrhage"),
        "Blood cultures and IV ceftriaxone (or cefotaxime) at once, without waiting for CT or "
        "lumbar puncture; dexamethasone; aciclovir if encephalitis is possible; lumbar puncture "
        "when safe.",
        (
            (NECK_STIFF, any_of(FEVER, HEADACHE, PHOTOPHOBIA)),
            (FEVER, PHOTOPHOBIA),
            (FEVER, HEADACHE, CONFUSED),
        ),
        PatientAdvice(
            "Possible meningitis: a stiff neck or a dislike of bright light with a fever",
            "Call 999 or go to A&E now: a stiff neck or a dislike of light with a fever can be "
            "meningitis.",
        ),
    ),
    RedFlagRule(
        "stroke_signs",
        "Sudden focal neurological deficit: facial droop, limb weakness, speech disturbance",
        ("ischaemic or haemorrhagic stroke", "transient ischaemic attack", "hypoglycaemia (mimic)"),
        "Capillary glucose; time last known well; urgent non-contrast CT head and CT "
        "angiography for thrombolysis (within 4.5 hours) or thrombectomy; stroke team now.",
        (
            (
                any_of(
                    r"face (?:is )?(?:drooping|droops|drooped|dropped|fallen)",
                    r"droop(?:ing|y) (?:face|mouth|smile)|facial (?:droop|weakness|asymmetry)",
                    r"one side of (?:my|his|her|the|their) face",
                    r"can't (?:lift|raise) (?:my|his|her|one|their) arm",
                    r"(?:arm|leg) (?:suddenly )?(?:went )?(?:weak|numb)",
                    r"weak(?:ness)? (?:in|of) (?:one|my|his|her|the (?:left|right)) "
                    r"(?:arm|leg|side)",
                    r"(?:left|right|one)[- ]sided (?:weakness|numbness)|\bhemi(?:paresis|plegi\w*)",
                    r"slurr(?:ed|ing)(?: speech| words)?|\bdysarthri\w+|\baphasi\w+|\bdysphasi\w+",
                    r"can't (?:speak|talk) properly|speech (?:is )?(?:slurred|garbled)",
                    r"fast (?:positive|test positive)",
                ),
            ),
        ),
        PatientAdvice(
            "Possible stroke: face drooping, arm weakness or slurred speech",
            "Call 999 now: these can be signs of a stroke, and every minute counts.",
        ),
    ),
    RedFlagRule(
        "unconscious_or_seizure",
        "Unresponsive, reduced consciousness or seizure",
        (
            "hypoglycaemia",
            "status epilepticus",
            "intracranial haemorrhage",
            "poisoning or overdose",
            "meningitis or sepsis",
        ),
        "ABC and recovery position; capillary glucose now; if fitting for more than 5 minutes, "
        "buccal midazolam or IV lorazepam; CT head when no clear cause is found.",
        (
            (
                any_of(
                    r"unconscious|unresponsive|\bobtunded\b",
                    r"won't wake(?: up)?|can't wake (?:him|her|them) up",
                    r"not breathing|stopped breathing",
                    r"seizure|convulsi(?:on|ng)|having a fit|had a fit|fitting|collapsed",
                    r"\bgcs (?:of |is |was )?(?:[3-9]|1[0-2])\b|status epilepticus",
                ),
            ),
        ),
        PatientAdvice(
            "Unconscious, unresponsive, not breathing or having a seizure",
            "Call 999 now. If the person is not breathing, start CPR; if they are fitting, move "
            "things away from them and do not hold them down.",
        ),
    ),
    RedFlagRule(
        "head_injury",
        "Head injury on anticoagulation, or with loss of consciousness, vomiting or amnesia",
        ("intracranial haemorrhage (subdural or extradural)",),
        "CT head within 1 hour if GCS < 13, a seizure, vomiting more than once or a skull "
        "fracture sign; within 8 hours if anticoagulated; check INR and reverse "
        "anticoagulation if there is bleeding.",
        (
            (HEAD_INJURY, ANTICOAGULANT),
            (
                HEAD_INJURY,
                r"knocked out|loss of consciousness|\bloc\b|vomit\w*|\bbeing sick\b"
                r"|\bkeeps? being sick\b|amnesia|can't remember|seizure",
            ),
        ),
        PatientAdvice(
            "A head injury while on blood thinners, or with being knocked out or vomiting",
            "Go to A&E now: a head injury with these signs needs a scan to check for bleeding.",
        ),
    ),
    RedFlagRule(
        "cauda_equina",
        "Back pain with saddle anaesthesia, urinary retention or incontinence, or bilateral "
        "leg symptoms",
        ("cauda equina syndrome", "spinal cord compression"),
        "Emergency MRI of the lumbosacral spine the same day; post-void bladder scan; check "
        "perianal sensation and anal tone; same-day spinal surgical referral.",
        (
            (
                any_of(BACK_PAIN, r"\bsciatica\b"),
                any_of(
                    r"saddle (?:an(?:a)?esthesia|numbness|sensory)",
                    r"numb\w* (?:between (?:my|his|her) legs|around (?:my|his|her|the) "
                    r"(?:bottom|back passage|genitals|anus))|perianal numbness",
                    r"(?:urinary|bladder) (?:retention|incontinence|dysfunction)|\bretention\b",
                    r"can't (?:pee|pass urine|urinate)|incontinen\w+|loss of (?:bladder|bowel)",
                    r"bilateral (?:sciatica|leg (?:weakness|numbness))|both legs (?:are )?"
                    r"(?:weak|numb)|reduced anal tone",
                ),
            ),
        ),
        PatientAdvice(
            "Back pain with numbness between the legs or problems passing urine",
            "Go to A&E now: back pain with numbness around the bottom or trouble peeing can be "
            "pressure on the nerves of the spine.",
        ),
    ),
    RedFlagRule(
        "cancer_back_pain",
        "Back pain in a patient with cancer",
        ("metastatic spinal cord compression",),
        "Whole-spine MRI within 24 hours (at once if there are neurological signs); "
        "dexamethasone 16 mg if there are; acute oncology and spinal team.",
        ((CANCER, BACK_PAIN),),
    ),
    RedFlagRule(
        "giant_cell_arteritis",
        "New headache over 50 with jaw claudication, scalp tenderness or visual symptoms",
        ("giant cell arteritis (risk of permanent visual loss)",),
        "ESR and CRP; start prednisolone 40–60 mg at once (IV methylprednisolone if vision is "
        "affected) without waiting for results; urgent ophthalmology if visual symptoms; "
        "temporal artery ultrasound or biopsy.",
        (
            (r"jaw claudication|jaw (?:pain|ache) (?:on|when) (?:chewing|eating)",),
            (r"scalp tender\w*|tender (?:scalp|temporal)|temporal artery",),
            (HEADACHE, r"polymyalgia|\bpmr\b"),
        ),
        PatientAdvice(
            "A new headache with jaw pain on chewing or a tender scalp",
            "Contact your GP surgery today: a new headache with jaw pain when chewing or a "
            "tender scalp can be inflamed arteries, which can affect your sight.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
    RedFlagRule(
        "sudden_visual_loss",
        "Sudden loss of vision",
        (
            "central retinal artery occlusion",
            "giant cell arteritis",
            "retinal detachment",
            "stroke",
        ),
        "Same-day ophthalmology; ESR and CRP in anyone over 50; the stroke pathway for a "
        "retinal artery occlusion.",
        ((SUDDEN, VISION_LOSS), (r"curtain (?:over|across|coming down)|\bamaurosis\b",)),
        PatientAdvice(
            "Sudden loss of sight",
            "Go to A&E now: sudden loss of sight needs an eye or stroke check straight away.",
        ),
    ),
    RedFlagRule(
        "acute_angle_closure",
        "Painful red eye with haloes, blurred vision, vomiting or a fixed mid-dilated pupil",
        ("acute angle-closure glaucoma",),
        "Measure intraocular pressure; IV acetazolamide, topical pilocarpine and a "
        "beta-blocker; emergency ophthalmology.",
        (
            (
                r"(?:painful|red) (?:red )?eye|eye pain",
                any_of(
                    r"halos?|haloes|fixed (?:mid-?)?dilated|mid-?dilated", VISION_LOSS, r"vomit\w*"
                ),
            ),
        ),
        PatientAdvice(
            "A painful red eye with blurred vision or rings around lights",
            "Go to A&E now: a painful red eye with blurred vision can be a sudden rise in eye "
            "pressure.",
        ),
    ),
    RedFlagRule(
        "suicidal_intent",
        "Suicidal thoughts or intent",
        ("immediate risk of suicide",),
        "Ask directly about intent, plan and means; do not leave the person alone; remove "
        "means; same-day crisis or liaison psychiatry assessment.",
        (
            (
                any_of(
                    r"kill (?:myself|himself|herself|themselves)",
                    r"suicid(?:e|al)",
                    r"end (?:my|his|her|their) (?:own )?life|take (?:my|his|her|their) own life",
                    r"want to die|better off dead|don't want to (?:live|be alive)",
                    r"hurt(?:ing)? myself on purpose|self[- ]harm",
                ),
            ),
        ),
        PatientAdvice(
            "Thoughts of suicide or of ending one's life",
            "Please call 999 or go to A&E now if you might act on these thoughts. You can also "
            "call Samaritans free on 116 123, any time, day or night.",
        ),
    ),
)

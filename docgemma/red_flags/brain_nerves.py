"""Rows of the red-flag table: headache, the brain and the spinal cord."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ANTICOAGULANT,
    BACK_PAIN,
    CANCER,
    CONFUSED,
    FEVER,
    HEAD_INJURY,
    HEADACHE,
    HYPOTENSION,
    LOW_GRADE_FEVER,
    NECK_STIFF,
    PHOTOPHOBIA,
    SEIZURE,
    SEVERE,
    SUDDEN,
    VISION_LOSS,
    WORD,
    any_of,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule
from docgemma.severity import Severity

STRUCK_ON_THE_HEAD = (
    r"\b(?:like|as if|as though) (?:[\w']+ ){0,2}(?:hit|struck|kicked|smacked|whacked|punched"
    r"|clubbed|thumped|slapped)\b(?: [\w']+){0,5} (?:head|skull)\b"
)
"""A thunderclap in lay words: "like being hit on the back of the head"."""
BURST_IN_THE_HEAD = (
    r"\b(?:explosion|bomb|gunshot|bang|pop|snap) (?:went off )?in (?:my|his|her|their|the) head"
    r"|\bsomething (?:burst|popped|snapped|exploded|went) in (?:my|his|her|their|the) head"
)
STRAIN = (
    r"\b(?:during|after|with|on|while|whilst) (?:\w+ )?(?:exertion|sex|intercourse|straining"
    r"|coitus|orgasm|lifting|(?:opening|open) (?:his|her|my|their) bowels)|\bstraining (?:on|at) "
    r"(?:the toilet|stool)"
)
PITUITARY_TUMOUR = (
    r"\bpituitary (?:\w+ ){0,2}(?:tumou?r|adenoma|macro-?adenoma|micro-?adenoma|mass|lesion"
    r"|growth)|\b(?:macro|micro)-?adenoma\b|\bprolactinoma\b|\bacromegal\w+"
    r"|\bcraniopharyngioma\b|\bcushing'?s disease\b"
)
SUDDEN_HEADACHE = (
    rf"(?:{SEVERE}|{SUDDEN}|thunderclap)\W+(?:\w+\W+){{0,2}}?(?:{HEADACHE})|\bthunderclap\b"
    r"|worst headache"
)
EYE_MUSCLE_PALSY = any_of(
    r"double vision|\bdiplopia\b|\bptosis\b|droop\w* (?:eye ?lid|eyelid)|(?:eye ?lid|eyelid)"
    r" (?:is )?droop\w*|\bophthalmopleg\w+",
    r"(?:third|3rd|fourth|4th|sixth|6th|oculomotor|abducens) (?:cranial )?nerve pals\w+"
    r"|cranial nerve pals\w+",
)
FIELD_LOSS = any_of(
    r"\bbitemporal\b|(?:visual )?field (?:loss|defect|cut)s?\b|\bhemianop\w+",
    r"can't see (?:\w+ ){0,2}(?:off )?to (?:the|either|both) sides?|(?:lost|losing|loss of) "
    r"(?:his |her |my |their )?peripheral vision|\btunnel vision\b",
)
LEGS_HEAVY = (
    r"\b(?:both |his |her |my |their |the )legs (?:feel |felt |are |feeling |have gone |went "
    r"|gone |going |have become |getting )*'?(?:very |really )?(?:heavy|weak|numb|like jelly"
    r"|wobbly)\b"
)
JAW_CLAUDICATION = any_of(
    r"jaw claudication|jaw (?:pain|ache) (?:on|when) (?:chewing|eating)",
    r"\bjaw (?:\w+ ){0,2}(?:aches?|pain|hurts|tires?|tired)(?: \w+){0,2} "
    r"(?:when|on|with|while|after) (?:\w+ )?(?:chew\w*|eat\w*)",
    r"(?:aching|ache|pain) in (?:\w+ ){0,4}jaw (?:when|on|with|while|after) (?:\w+ )?(?:chew\w*"
    r"|eat\w*)",
)
"""Pain in the jaw muscles on chewing: arteries too narrowed to feed them."""
SCALP_TENDER = any_of(
    r"scalp tender\w*|tender (?:scalp|temporal)|temporal artery",
    r"(?:hurts|painful|sore|tender) (?:to|when (?:she|he|i|they)) (?:\w+ ){0,2}(?:brush\w*|comb\w*)"
    r" (?:\w+ )?hair",
)
HIGH_ESR = r"\besr (?:of |is |was |:|=)?\s*(?:[5-9]\d|1[0-4]\d)(?!\.?\d)"
"""An ESR of 50 mm/h or more: with a new headache, giant cell arteritis until shown otherwise."""
FACE_DROOP = any_of(
    r"face (?:is |looks |'?)?(?:drooping|droops|drooped|dropped|fallen|droopy)",
    r"droop(?:ing|y) (?:face|mouth|smile)|facial (?:droop|weakness|asymmetry)",
    r"one side of (?:my|his|her|the|their) face",
)
FOREHEAD_WEAK = any_of(
    rf"forehead (?:is )?(?:{WORD} ){{0,2}}(?:flat|involved|weak)|forehead (?:is )?not spared",
    r"(?:can't|unable to|cannot) (?:raise|wrinkle|lift) (?:\w+ ){0,2}(?:eyebrows?|forehead|brow)",
    r"(?:can't|unable to|cannot) (?:fully )?(?:close|shut) (?:\w+ ){0,2}eye",
)
"""A weak forehead or an eye that will not close on the side of a facial palsy: the nerve
itself (a Bell's palsy), not a stroke, which spares the upper face."""
ALTERED_BEHAVIOUR = any_of(
    r"behaving (?:oddly|strangely|bizarrely|out of character)|acting (?:oddly|strange\w*|odd)"
    r"|not making sense|personality change|out of character|(?:strange|odd|bizarre|unusual) "
    r"behaviou?r",
    r"hallucinat\w+|smell\w* (?:burning|something)|lip[- ]smack\w*",
    r"\bgcs (?:of |is |was )?(?:[3-9]|1[0-4])\b",
)
"""A change in behaviour or awareness: with a fever, the brain itself may be infected."""
SHAKING = r"\bshaking (?:episode|attack|fit)s?|\bjerking\b"
CANT_PASS_URINE = (
    r"(?:hasn't|has not|haven't|have not|hadn't|not) (?:been able to )?(?:passed|passing|pass"
    r"|peed|weed) (?:any )?(?:urine|water|pee)|unable to (?:pass urine|void|pee)"
)
SPEECH_DISTURBANCE = any_of(
    r"slurr(?:ed|ing)(?: speech| words)?|\bdysarthri\w+|\baphasi\w+|\bdysphasi\w+",
    r"can't (?:speak|talk) properly|speech (?:is |was |went )?(?:slurred|garbled|jumbled)",
    r"words (?:came|were coming|kept coming) out (?:all )?(?:wrong|jumbled|muddled|garbled"
    r"|mixed up|in the wrong order)|(?:jumbled|garbled|muddled) (?:up )?(?:words|speech)",
    r"\bwords (?:are |were )?(?:all )?(?:jumbled|garbled|muddled)",
    r"(?:couldn't|can't) (?:get (?:my|his|her|their|the) words out|find (?:the|my|his|her|their)"
    r" words)"
    r"|word[- ]finding difficult\w*|(?:lost|loss of) (?:the ability to speak"
    r"|(?:my|his|her|their) speech)",
)
ONE_LIMB_FAILED = any_of(
    r"can't (?:lift|raise) (?:my|his|her|one|their) arm",
    r"(?:arm|leg) (?:suddenly )?(?:went |is |was |has gone )?(?:weak|numb|useless|limp|floppy)\b",
    r"\b(?:left|right|l|r) (?:arm|leg)(?: and (?:arm|leg|face))? weakness",
    r"\bhand (?:suddenly )?went (?:weak|numb|useless|clumsy)\b",
    r"(?:arm|hand|leg) (?:wouldn't|would not|won't|didn't|did not|couldn't) (?:do what|obey)",
    r"weak(?:ness)? (?:in|of) (?:one|my|his|her|the (?:left|right)) (?:arm|leg|side|hand)",
    r"(?:left|right|one)[- ]sided (?:weakness|numbness)|\bhemi(?:paresis|plegi\w*)",
)
"""One limb suddenly weak, numb or not obeying: a focal motor deficit."""

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
                r"|a few minutes)|like (?:being )?(?:hit|struck|kicked)|maximal at onset",
            ),
            (any_of(STRUCK_ON_THE_HEAD, BURST_IN_THE_HEAD),),
            (HEADACHE, STRAIN),
        ),
        PatientAdvice(
            "A sudden, very severe headache",
            "Call 999 or go to A&E now: a sudden, very severe headache can be bleeding around "
            "the brain.",
        ),
    ),
    RedFlagRule(
        "pituitary_apoplexy",
        "Sudden severe headache, visual loss, double vision or ptosis with a known pituitary "
        "tumour, or a sudden headache with an eye-muscle palsy or a visual field defect",
        (
            "pituitary apoplexy",
            "adrenal crisis (acute cortisol deficiency from hypopituitarism)",
            "subarachnoid haemorrhage (posterior communicating artery aneurysm)",
        ),
        "IV hydrocortisone 100 mg at once if unwell or hypotensive (a cortisol sample first only "
        "if it causes no delay); U&E (sodium), glucose, cortisol, TFT, prolactin; urgent MRI "
        "pituitary (CT may miss it) or CT angiography if an aneurysm is possible; visual "
        "acuity, fields and eye movements; neurosurgery and endocrinology the same day.",
        (
            (
                PITUITARY_TUMOUR,
                any_of(SUDDEN_HEADACHE, EYE_MUSCLE_PALSY, FIELD_LOSS, VISION_LOSS, HYPOTENSION),
            ),
            (SUDDEN_HEADACHE, any_of(EYE_MUSCLE_PALSY, FIELD_LOSS)),
        ),
        PatientAdvice(
            "A sudden severe headache, double vision or loss of sight with a pituitary tumour",
            "Call 999 or go to A&E now: with a pituitary tumour, a sudden headache or change in "
            "sight can be bleeding into it, which needs steroid treatment straight away.",
        ),
    ),
    RedFlagRule(
        "meningitis_signs",
        "Fever or headache with neck stiffness, photophobia or altered consciousness",
        (
            "bacterial meningitis (including meningococcal disease)",
            "viral (herpes simplex) encephalitis",
            "subarachnoid haemorrhage",
        ),
        "Blood cultures and IV ceftriaxone (or cefotaxime) at once, without waiting for CT or "
        "lumbar puncture; dexamethasone; aciclovir if encephalitis is possible; lumbar puncture "
        "when safe.",
        (
            (NECK_STIFF, any_of(FEVER, HEADACHE, PHOTOPHOBIA)),
            (FEVER, ALTERED_BEHAVIOUR),
            (FEVER, PHOTOPHOBIA),
            (FEVER, HEADACHE, CONFUSED),
            (ALTERED_BEHAVIOUR, LOW_GRADE_FEVER, any_of(HEADACHE, SEIZURE, SHAKING)),
        ),
        PatientAdvice(
            "Possible meningitis: a stiff neck or a dislike of bright light with a fever",
            "Call 999 or go to A&E now: a stiff neck or a dislike of light with a fever can be "
            "meningitis.",
        ),
    ),
    RedFlagRule(
        "stroke_signs",
        "Sudden focal neurological deficit: facial droop, limb weakness, speech disturbance, "
        "even if it has resolved",
        ("ischaemic or haemorrhagic stroke", "transient ischaemic attack", "hypoglycaemia (mimic)"),
        "Capillary glucose; time last known well; urgent non-contrast CT head and CT "
        "angiography for thrombolysis (within 4.5 hours) or thrombectomy; stroke team now; if "
        "the symptoms have resolved, same-day (within 24 hours) TIA clinic with aspirin 300 mg "
        "meanwhile, unless anticoagulated or bleeding is possible.",
        (
            (FACE_DROOP, Absent(FOREHEAD_WEAK)),
            (any_of(ONE_LIMB_FAILED, SPEECH_DISTURBANCE, r"fast (?:positive|test positive)"),),
            (
                SUDDEN,
                r"talking (?:rubbish|nonsense|gibberish)|(?:doesn't|does not|can't|cannot) "
                r"(?:follow|understand) (?:\w+ )?(?:commands|instructions)",
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
                    r"(?:not|n't) breathing|stopped breathing",
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
        ("extradural haematoma", "subdural haematoma", "other intracranial haemorrhage"),
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
                    CANT_PASS_URINE,
                    LEGS_HEAVY,
                    r"can't (?:pee|pass urine|urinate)|incontinen\w+|loss of (?:bladder|bowel)",
                    r"can't feel (?:\w+ ){0,3}(?:toilet paper|when (?:i|she|he|they) wipe)"
                    r"|numb\w* (?:\w+ ){0,2}when (?:i|she|he|they) wipe",
                    r"(?:struggling|difficulty|trouble|hard|straining) (?:to |with )?"
                    r"(?:pass\w*|pee\w*|wee\w*|urinat\w*)",
                    r"(?:sciatica|pain|numbness|weakness|tingling) (?:\w+ ){0,2}(?:in|down|into) "
                    r"both legs",
                    r"bilateral (?:sciatica|leg (?:weakness|numbness))|both legs (?:are )?"
                    r"(?:weak|numb)|reduced anal tone",
                    r"\bsciatica'? (?:in |down )?both legs|can't tell when (?:i|she|he|they) "
                    r"(?:needs?|wants?) to (?:go|pee|wee|pass urine)|(?:reduced|altered|lost|no) "
                    r"bladder sensation",
                    r"(?:bladder scan|residual|post[- ]?void)(?: \w+){0,3} (?:[3-9]\d\d|\d{4}) ?ml",
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
        (
            (CANCER, BACK_PAIN),
            (
                CANCER,
                any_of(
                    r"\bband[- ]like\b|\bgirdle pain|pain (?:\w+ ){0,2}(?:a?round|encircling) "
                    r"(?:his|her|the|my|their) (?:chest|trunk|ribs|waist|abdomen)",
                    LEGS_HEAVY,
                ),
            ),
        ),
    ),
    RedFlagRule(
        "giant_cell_arteritis",
        "New headache over 50 with jaw claudication, scalp tenderness or visual symptoms",
        ("giant cell arteritis (risk of permanent visual loss)",),
        "ESR and CRP; start prednisolone 40–60 mg at once (IV methylprednisolone if vision is "
        "affected) without waiting for results; urgent ophthalmology if visual symptoms; "
        "temporal artery ultrasound or biopsy.",
        (
            (JAW_CLAUDICATION,),
            (SCALP_TENDER,),
            (HEADACHE, r"polymyalgia|\bpmr\b"),
            (HEADACHE, HIGH_ESR),
        ),
        PatientAdvice(
            "A new headache with jaw pain on chewing or a tender scalp",
            "Contact your GP surgery today: a new headache with jaw pain when chewing or a "
            "tender scalp can be inflamed arteries, which can affect your sight.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
)

"""Rows of the red-flag table: hormones, glucose and salts (adrenal crisis, thyroid storm,
severe hypoglycaemia, ketoacidosis on an SGLT2 inhibitor, and dangerous sodium and calcium
levels)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ABDO_PAIN,
    BREATHLESS,
    CANCER,
    CONFUSED,
    DIARRHOEA,
    FEVER,
    HEADACHE,
    HEART_RATE,
    HYPOTENSION,
    JAUNDICE,
    LONG_AGO,
    LOW_TEMP,
    OLDER_ADULT,
    SEIZURE,
    SWEATING,
    SYNCOPE,
    VOMITING,
    WEIGHT_LOSS,
    any_of,
    taking,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule

STEROID_DEPENDENT = any_of(
    r"\baddison'?s?\b|adrenal (?:insufficien\w+|failure)|\bhypoadrenal\w*|\bhypopituitar\w+",
    r"congenital adrenal hyperplasia|\bcah\b|steroid[- ]dependen\w+",
    r"(?:stopped|stopping|ran out of|run out of|missed|forgot) (?:\w+ ){0,2}(?:steroids?|pred\b"
    r"|prednisolone|prednisone|hydrocortisone|dexamethasone)",
    r"(?:long[- ]term|regular|daily|maintenance) (?:oral )?(?:steroids?|prednisolone"
    r"|hydrocortisone|dexamethasone)",
    r"\b(?:on|takes?|taking) (?!inhaled|topical|nasal)(?:oral |long-term |regular )?"
    r"(?:hydrocortisone|prednisolone|prednisone|pred|dexamethasone|fludrocortisone|steroids?)\b"
    r"(?! (?:cream|inhaler|nasal|spray|drops|ointment))",
)
THYROTOXIC = any_of(
    r"\bhyperthyroid\w*|\bthyrotoxic\w*|\bgraves'?(?: disease)?\b|overactive thyroid",
    r"toxic (?:multinodular )?(?:goitre|nodule)",
    r"(?:stopped|ran out of|missed|not taking) (?:\w+ ){0,2}(?:carbimazole|propylthiouracil"
    r"|methimazole)",
)
THYROID_SIGNS = any_of(
    r"\bgoitre\b|\bgoiter\b|(?:swelling|lump) (?:at|in) the front of (?:her|his|the|their) neck",
    r"staring eyes|bulging eyes|\bexophthalm\w+|\bproptos\w+|lid lag",
)
"""A goitre or the eyes of Graves' disease: thyrotoxicosis not yet named."""
VERY_FAST_PULSE = (
    HEART_RATE + r"(?:1[4-9]\d|2\d\d)\b|fast af|\baf (?:at|rate(?: of)?) (?:1[4-9]\d|2\d\d)\b"
    r"|\baf with (?:a )?(?:fast|rapid)|\bheart (?:is )?(?:racing|pounding)"
)
UNCONSCIOUS = (
    r"unconscious|unresponsive|not responding|won't wake|can't wake|\bgcs\b|\bobtunded\b"
    r"|reduced consciousness"
)
GLUCOSE_WORDS = (
    r"\b(?:(?:blood |capillary |finger-?prick )?glucose|(?:blood )?sugars?|bms?|cbg|bg)"
    r"(?: levels?| readings?| was| is| of| at| down to| only| just|:)*\s*"
)
LOW_GLUCOSE = any_of(
    GLUCOSE_WORDS + r"(?:[0-2]\.\d|3\.[0-4])(?!\.?\d)",
    GLUCOSE_WORDS + r"[0-2](?:\s*mmol|(?=\s*(?:$|[,;!?)]|\.(?!\d)|\s(?:and|with|but)\b)))",
    GLUCOSE_WORDS + r"(?:[1-4]\d|5[0-3])\s*mg/dl",
)
"""Below 3.5 mmol/L (54 mg/dL)."""
HYPO = (
    r"\bhypos?\b|\bhypoglyc(?:a)?emi\w+|low (?:blood )?sugars?|(?:blood )?sugars? (?:is |was "
    r"|are |went |has gone |have gone |dropped |has dropped )?(?:very |really |dangerously )?"
    r"(?:low|crashed)"
)
SULFONYLUREA = r"gliclazide|glimepiride|glibenclamide|glipizide|sulfonylureas?|sulphonylureas?"
SODIUM_LOWERING = (
    r"citalopram|escitalopram|sertraline|fluoxetine|paroxetine|venlafaxine|mirtazapine|ssris?"
    r"|indapamide|bendroflumethiazide|hydrochlorothiazide|chlortalidone|thiazides?"
    r"|carbamazepine|oxcarbazepine"
)
"""Drugs that lower the sodium, above all in older people."""
HYPO_DANGER = any_of(
    CONFUSED,
    SEIZURE,
    UNCONSCIOUS,
    r"slurr\w+|can't swallow|unable to swallow|\baggressive\b|\bcombative\b|not making sense",
    r"keeps? (?:coming back|dropping|going low)|\brecurr\w+|won't (?:come|go) up|not (?:coming"
    r"|going) up",
    rf"\b(?:{SULFONYLUREA})\b",
    r"(?:took|taken|injected|given) (?:too much|a double dose of|extra|double (?:the )?) ?insulin"
    r"|insulin overdose",
)
SGLT2 = taking(
    r"sglt-?2(?: inhibitors?)?|dapagliflozin|empagliflozin|canagliflozin|ertugliflozin"
    r"|sotagliflozin|\w*gliflozins?|forxiga|jardiance|invokana|synjardy|xigduo"
)
KETOSIS = (
    r"\bketon\w+|\bkussmaul\b|deep (?:sighing )?breath\w*|breathing (?:fast|deeply|heavily)"
    r"|fast breathing|\bacidosis\b|\bacidotic\b|low bicarb\w*|\bph (?:of )?(?:6\.\d|7\.[0-2])\d*"
)
LAB_VALUE = (
    r"(?:\s+(?:level|levels|result|came|back|was|is|of|at|now|down|to|only|just|today|this"
    r"|morning))*\s*[:=]?\s*"
)
"""The words between a test and its value ("calcium came back at 3.7")."""
SODIUM = r"(?<!urine )(?<!urinary )\b(?:na\+?|sodium|serum sodium)" + LAB_VALUE
CALCIUM = (
    r"(?<!ionised )(?<!ionized )\b(?:adjusted |corrected )?(?:ca(?:2\+|\+\+)?|calcium)" + LAB_VALUE
)
NOT_A_DOSE = r"(?!\.?\d)(?!\s*(?:mg|g\b|grams|%|tablets|times|x\b))"
HYPERCALCAEMIA_SIGNS = any_of(
    CONFUSED,
    VOMITING,
    ABDO_PAIN,
    r"dehydrat\w+|polyuri\w+|\bthirst\w*|constipat\w+|\baki\b|acute kidney|short qt|arrhythmi\w+",
)
NECK_SURGERY = (
    r"\b(?:para)?thyroidectomy|(?:para)?thyroid (?:surgery|operation)|neck (?:surgery|dissection"
    r"|operation)"
)
TETANY = any_of(
    r"tingl\w* (?:around|round|in|of) (?:my |his |her |the |their )?(?:mouth|lips|fingers|hands"
    r"|face)|(?:perioral|circumoral) (?:tingling|numbness|paraesthesi\w+)",
    r"pins and needles (?:around|in) (?:my |his |her |the )?(?:mouth|lips|fingers|hands)"
    r"|numb(?:ness)? (?:around|of) (?:my |his |her |the )?(?:mouth|lips)",
    r"(?:lips|mouth|fingers|hands|face)(?: and (?:lips|mouth|fingers|hands|face))? (?:are |is "
    r"|keep |feel |feels )?tingl\w*",
    r"carpo-?pedal spasm|\btetany\b|\btrousseau\w*|\bchvostek\w*|(?:hands|fingers) (?:are |went "
    r"|have gone )?(?:cramping|spasming|clawing|in spasm)|muscle cramps?",
)

HYPOTHYROID = any_of(
    r"hypothyroid\w*|levothyroxine|\bthyroxine\b|underactive thyroid|myxo?edema|hashimoto\w*",
    r"(?:hasn't|has not|not) (?:been )?(?:taking|taken|picked up|collected) (?:\w+ ){0,2}"
    r"(?:levo)?thyroxine|(?:stopped|run out of|ran out of) (?:\w+ ){0,2}(?:levo)?thyroxine",
)
"""Hypothyroidism, or its treatment stopped (which a negation would otherwise hide)."""
SLOW_OR_SALT = any_of(
    r"\bbradycardi\w*|" + HEART_RATE + r"(?:[2-4]\d|5[0-4])(?!\.?\d)",
    SODIUM + r"1[0-2]\d(?!\.?\d)",
    r"hyponatra?emi\w*",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "adrenal_crisis",
        "Vomiting, diarrhoea, hypotension, collapse or confusion in a patient with adrenal "
        "insufficiency or on long-term steroids",
        ("adrenal crisis", "sepsis or another precipitant"),
        "Hydrocortisone 100 mg IV or IM at once, without waiting for blood results (take "
        "cortisol and ACTH first only if it causes no delay); IV 0.9% saline, 1 L over the "
        "first hour; glucose and U&E (low sodium, high potassium); then hydrocortisone 200 mg "
        "over 24 hours; find and treat the precipitant.",
        ((STEROID_DEPENDENT, any_of(VOMITING, DIARRHOEA, HYPOTENSION, SYNCOPE, CONFUSED)),),
        PatientAdvice(
            "Addison's disease or long-term steroids with vomiting, diarrhoea or feeling faint",
            "Inject your emergency hydrocortisone if you have it and call 999 (say you have "
            "adrenal insufficiency): vomiting or feeling faint can be an adrenal crisis.",
        ),
    ),
    RedFlagRule(
        "myxoedema_coma",
        "Drowsiness or confusion with a low temperature, a slow pulse or a low sodium in a "
        "patient with hypothyroidism, or who has stopped levothyroxine",
        (
            "myxoedema coma",
            "hypothermia from another cause (sepsis, stroke, drugs)",
            "adrenal insufficiency (coexisting)",
        ),
        "Critical care; IV levothyroxine or liothyronine after cortisol is drawn, with IV "
        "hydrocortisone first; passive rewarming; glucose, sodium, blood gas; look for the "
        "precipitant (infection, sedatives, cold).",
        ((HYPOTHYROID, any_of(CONFUSED, UNCONSCIOUS), any_of(LOW_TEMP, SLOW_OR_SALT)),),
    ),
    RedFlagRule(
        "thyroid_storm",
        "An overactive thyroid with fever, confusion or agitation, or a very fast heart rate "
        "with vomiting, diarrhoea, heart failure or jaundice; fever with a heart rate over 140, "
        "a tremor and weight loss",
        (
            "thyroid storm",
            "sepsis as the precipitant",
            "agranulocytosis (if on an antithyroid drug)",
        ),
        "Treat on clinical grounds (Burch–Wartofsky score) without waiting for thyroid "
        "function: propranolol unless contraindicated, propylthiouracil or carbimazole, then "
        "Lugol's iodine at least an hour after the thionamide, IV hydrocortisone; cooling and "
        "IV fluids; ECG and cardiac monitoring; FBC, cultures; find the precipitant; "
        "endocrinology and critical care.",
        (
            (THYROTOXIC, any_of(FEVER, CONFUSED)),
            (THYROID_SIGNS, FEVER, VERY_FAST_PULSE),
            (FEVER, VERY_FAST_PULSE, r"\btremor\w*", WEIGHT_LOSS),
            (
                THYROTOXIC,
                VERY_FAST_PULSE,
                any_of(VOMITING, DIARRHOEA, BREATHLESS, JAUNDICE, r"heart failure"),
            ),
        ),
        PatientAdvice(
            "An overactive thyroid with a high temperature, a racing heart, confusion or vomiting",
            "Go to A&E now: with an overactive thyroid, a high temperature, a racing heart or "
            "confusion can be a thyroid storm.",
        ),
    ),
    RedFlagRule(
        "severe_hypoglycaemia",
        "Hypoglycaemia with confusion, reduced consciousness or a seizure, or from a "
        "sulfonylurea or an insulin overdose",
        (
            "severe hypoglycaemia (brain injury, seizure)",
            "a cause that will recur: sulfonylurea or long-acting insulin, overdose, adrenal "
            "insufficiency, liver or kidney failure, sepsis",
        ),
        "If able to swallow safely: 15–20 g of fast-acting glucose, recheck after 15 minutes "
        "(up to three times), then a long-acting carbohydrate; if not: IV glucose 10% "
        "(150–200 mL over 15 minutes) or IM glucagon 1 mg (less reliable after a sulfonylurea); "
        "check the glucose now if it is not known; admit for a glucose infusion and monitoring "
        "when a sulfonylurea or long-acting insulin caused it (octreotide if a sulfonylurea "
        "hypoglycaemia keeps recurring); find the cause.",
        (
            (LOW_GLUCOSE, HYPO_DANGER),
            (HYPO, HYPO_DANGER),
            (
                taking(SULFONYLUREA),
                any_of(CONFUSED, SWEATING, r"\baggressive\b|\bcombative\b|\bodd behaviour"),
                Absent(GLUCOSE_WORDS + r"(?:[4-9]|[12]\d)(?:\.\d)?(?!\.?\d)(?!\s*mg)"),
                Absent(LONG_AGO),
            ),
        ),
        PatientAdvice(
            "Low blood sugar (a hypo) with confusion, drowsiness or a fit",
            "Call 999 if the person is unconscious, fitting or cannot swallow safely — give "
            "nothing by mouth and use glucagon if you have it. If they can swallow, give a "
            "sugary drink or glucose tablets now, and call 999 if they are not better within "
            "15 minutes.",
        ),
    ),
    RedFlagRule(
        "sglt2_ketoacidosis",
        "Vomiting, abdominal pain, fast or deep breathing or ketones in a patient on an SGLT2 "
        "inhibitor",
        ("euglycaemic diabetic ketoacidosis (glucose may be normal)",),
        "Blood ketones and a venous gas whatever the glucose (it may be below 14 mmol/L); "
        "stop the SGLT2 inhibitor; treat ketoacidosis with IV fluids, fixed-rate insulin and "
        "a 10% glucose infusion; find the precipitant (surgery, fasting, infection).",
        ((SGLT2, any_of(VOMITING, ABDO_PAIN, KETOSIS)),),
        PatientAdvice(
            "Being sick, tummy pain or fast, deep breathing while taking a 'gliflozin' "
            "medicine (such as dapagliflozin or empagliflozin)",
            "Go to A&E now and say which medicine you take: these can be signs of ketoacidosis, "
            "even when your blood sugar is normal.",
        ),
    ),
    RedFlagRule(
        "severe_hyponatraemia",
        "Sodium below 125 mmol/L with confusion, vomiting, headache, drowsiness or a seizure, "
        "or below 120 mmol/L",
        (
            "hyponatraemia with encephalopathy (cerebral oedema)",
            "adrenal insufficiency",
            "a drug cause (thiazide, SSRI, carbamazepine, MDMA)",
        ),
        "Sodium now if it is not known. With severe symptoms (seizure, reduced consciousness, "
        "vomiting): 150 mL of 3% saline IV over 20 minutes, repeated until the sodium has risen "
        "by 5 mmol/L; then limit the rise to 10 mmol/L in the first 24 hours (8 mmol/L with a "
        "high risk of osmotic demyelination: alcohol, malnutrition, low potassium); sodium "
        "every 2–4 hours; paired serum and urine osmolality and urine sodium, TSH and "
        "cortisol; stop causative drugs.",
        (
            (SODIUM + r"1[01]\d(?!\.?\d)",),
            (
                r"\bmarathon\b|\bultra\b|\btriathlon\b|\bendurance\b|\bmed tent\b",
                r"\bdr[ia]nk\w* (?:\w+ ){0,3}(?:water|fluids?)|\bextra (?:water|fluids?)",
                any_of(CONFUSED, VOMITING, HEADACHE, r"\bpuffy\b|rings (?:are )?tight|\bseizure"),
            ),
            (
                taking(SODIUM_LOWERING),
                OLDER_ADULT,
                any_of(CONFUSED, r"\bfalls?\b(?! clinic)|\bunsteady\b"),
                Absent(SODIUM + r"(?:1[3-4]\d|12[5-9])(?!\.?\d)"),
                Absent(LONG_AGO),
            ),
            (
                SODIUM + r"12[0-4](?!\.?\d)",
                any_of(CONFUSED, SEIZURE, VOMITING, HEADACHE, UNCONSCIOUS, r"\bfalls?\b"),
            ),
        ),
    ),
    RedFlagRule(
        "severe_hypercalcaemia",
        "Adjusted calcium 3.5 mmol/L or more, or above 3.0 with confusion, vomiting, "
        "dehydration or kidney injury",
        (
            "severe hypercalcaemia (arrhythmia, acute kidney injury)",
            "malignancy (bone metastases, myeloma, PTHrP)",
            "primary hyperparathyroidism",
        ),
        "ECG; IV 0.9% saline rehydration as the heart and kidneys allow; IV bisphosphonate "
        "once rehydrated; stop thiazides, calcium and vitamin D; PTH, PTHrP, myeloma screen, "
        "phosphate, vitamin D, U&E.",
        (
            (CALCIUM + r"(?:3\.[5-9]\d*|[45](?:\.\d+)?)" + NOT_A_DOSE,),
            (CALCIUM + r"1[4-9](?:\.\d+)?\s*mg/dl",),
            (CALCIUM + r"3\.\d+" + NOT_A_DOSE, HYPERCALCAEMIA_SIGNS),
            (CALCIUM + r"1[23](?:\.\d+)?\s*mg/dl", HYPERCALCAEMIA_SIGNS),
            (
                CANCER,
                any_of(CONFUSED, r"\bmuddled\b"),
                r"\bthirst\w*|polyuri\w+|constipat\w+|drinking (?:loads|lots|a lot)",
            ),
        ),
    ),
    RedFlagRule(
        "acute_hypocalcaemia",
        "Perioral or finger tingling, cramps or tetany after neck surgery, or an adjusted "
        "calcium below 1.9 mmol/L",
        (
            "acute hypocalcaemia (laryngospasm, seizures, arrhythmia)",
            "hypoparathyroidism after thyroid or parathyroid surgery",
            "hypomagnesaemia",
        ),
        "Adjusted calcium, magnesium, phosphate, PTH and an ECG (QTc) now; for tetany, "
        "seizures, arrhythmia or calcium below 1.9 mmol/L: IV calcium gluconate 10%, 10–20 mL "
        "in 50–100 mL of 5% glucose over 10 minutes with cardiac monitoring, then an "
        "infusion; correct magnesium; oral calcium and alfacalcidol once stable.",
        (
            (NECK_SURGERY, TETANY),
            (CALCIUM + r"(?:1\.[0-8]\d*|0\.\d+)" + NOT_A_DOSE,),
            (TETANY, r"\bhypocalc\w+|low calcium"),
        ),
        PatientAdvice(
            "Tingling around the mouth or in the fingers, or cramps, after thyroid or neck surgery",
            "Go to A&E now (or call the ward that did the operation): after neck surgery these "
            "can mean a low calcium, which needs treatment today.",
        ),
    ),
)

"""Rows of the red-flag table: psychiatric medicines, alcohol and eating disorders
(neuroleptic malignant and serotonin syndromes, lithium toxicity, alcohol withdrawal,
Wernicke's encephalopathy and the medically unstable eating disorder)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ALCOHOL_EXCESS,
    CHEST_PAIN,
    CONFUSED,
    DIARRHOEA,
    FEVER,
    HEART_RATE,
    HYPOTENSION,
    LOW_TEMP,
    OLDER_ADULT,
    SEIZURE,
    SWEATING,
    SYNCOPE,
    TACHYCARDIA,
    VOMITING,
    any_of,
    taking,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule

ANTIPSYCHOTIC = taking(
    r"anti-?psychotics?|neuroleptics?|haloperidol|olanzapine|risperidone|quetiapine"
    r"|aripiprazole|clozapine|chlorpromazine|amisulpride|paliperidone|flupent\w+"
    r"|zuclopenthixol|lurasidone|levomepromazine|metoclopramide|prochlorperazine|(?:a )?depot"
)
RIGID = any_of(
    r"(?<!nuchal )(?<!neck )\brigid(?:ity)?\b(?! (?:abdomen|belly|tummy|stomach))|lead[- ]pipe",
    r"(?:muscles?|arms|legs|body|limbs|he|she|they) (?:is |are |feel |feels |went |has gone "
    r"|have gone |has become |have become )?(?:very )?(?:stiff|rigid)\b",
    r"stiff (?:all over|as a board)|muscle stiffness|\bcatatoni\w+",
    r"\b(?:really|very|so|extremely|gone|went) stiff\b(?! neck)",
)
CK_HIGH = r"\b(?:ck|creatine kinase|cpk)\s*(?:of|is|was|:|=)?\s*(?:[1-9]\d{3,}|[1-9],\d{3})"
LEVODOPA_STOPPED = (
    r"(?:stopped|missed|withheld|withdrawn|ran out of|not given|couldn't take|unable to take)"
    r" (?:\w+ ){0,3}(?:levodopa|co-careldopa|co-beneldopa|sinemet|madopar|parkinson'?s "
    r"(?:meds|medications?|tablets|drugs))"
)
SEROTONERGIC = taking(
    r"ssris?|snris?|sertraline|fluoxetine|citalopram|escitalopram|paroxetine|fluvoxamine"
    r"|venlafaxine|duloxetine|vortioxetine|tramadol|maois?|phenelzine|tranylcypromine"
    r"|moclobemide|selegiline|linezolid|methylene blue|methylthioninium|fentanyl|pethidine"
    r"|mdma|ecstasy|sumatriptan|triptans?|ondansetron|st john'?s wort|dextromethorphan"
    r"|amitriptyline|clomipramine|imipramine|trazodone|mirtazapine|antidepressants?"
)
CLONUS = (
    r"\bclonus\b|\bmyoclon\w+|\bhyperreflexi\w+|brisk reflexes|\btwitch\w*|\bjerk(?:ing|s|y)\b"
    r"|\bjump\w* on (?:their|its) own|\b(?:jump|jerk)\w* (?:\w+ ){0,2}when (?:i|you|we) tap"
    r"|muscle spasms"
)
AUTONOMIC = any_of(
    FEVER,
    SWEATING,
    TACHYCARDIA,
    CONFUSED,
    DIARRHOEA,
    r"dilated pupils|\bmydriasis\b|\brestless\w*|\bagitat\w+",
)
LITHIUM = taking(r"lithium|priadel|camcolit|liskonum")
LITHIUM_HIGH = r"\blithium (?:level )?(?:of|is|was|:|=)?\s*(?:1\.[5-9]\d*|[2-9](?:\.\d+)?)(?!\.?\d)"
LITHIUM_TOXIC = any_of(
    VOMITING,
    DIARRHOEA,
    r"coarse tremor|(?:tremor|shaking) (?:is |has )?(?:got |become )?(?:worse|much worse|getting "
    r"worse|bad)|(?:worse|worsening|bad|severe) (?:tremor|shaking)",
    r"\bataxi\w+|\bunsteady\b|slurr\w+|\bconfus\w+|\bdrows\w+|\bmyoclon\w+|\btwitch\w*",
    SEIZURE,
)
WITHDRAWAL = (
    r"(?:stopped|stopping|quit|cut down|cutting down|gave up|giving up) (?:\w+ ){0,2}"
    r"(?:drinking|alcohol|the drink|booze)|alcohol withdrawal|withdraw\w* from (?:alcohol|drink)"
    r"|(?:last|no) (?:alcoholic )?drink (?:for|since|in)|(?:since|after) (?:his|her|my|their|the)"
    r" last drink"
)
SEVERE_WITHDRAWAL = any_of(
    r"hallucinat\w+|seeing (?:things|bugs|insects|spiders)|hearing (?:voices|things)",
    SEIZURE,
    CONFUSED,
    r"\bdisorientat\w+",
)
WITHDRAWAL_SIGNS = (
    r"\bagitat\w+|\btremo\w+|\bshak(?:y|ing|es)\b|hallucinat\w+|picking at|seeing (?:things"
    r"|bugs|insects|spiders)"
)
"""What a heavy drinker cut off from alcohol (often by an admission) shows before a delirium."""
ATAXIA = (
    r"\bataxi\w+|unsteady (?:on (?:his|her|my|their) feet|gait|walking)|(?:walking|walks|gait)"
    r" (?:is )?(?:unsteady|wobbly|like (?:he's|she's|i'm) drunk)|(?:can't|struggling to) walk "
    r"(?:straight|properly)|\bstaggering\b|wide-based gait|\bwobbly (?:walking|on (?:her|his) feet)"
)
EYE_SIGNS = (
    r"\bnystagmus\b|\bophthalmopleg\w+|(?:eye movement|gaze) (?:palsy|abnormalit\w+)"
    r"|double vision|\bdiplopia\b|(?:lateral rectus|sixth nerve) palsy|eyes (?:flicking|jumping)"
    r"|vision (?:is )?'?jumpy"
)
MALNOURISHED = (
    r"\bhyperemesis\b|\bbariatric\b|gastric (?:bypass|sleeve|band)|\bmalnourish\w*"
    r"|vomiting for (?:\d+|two|three|several) weeks|weeks of vomiting"
    r"|\bmalnutrition\b|\bstarv\w+"
)
EATING_DISORDER = (
    r"anorexi\w* nervosa|\banorexic\b|eating disorder|\barfid\b|\bbulimi\w+"
    r"|(?:i have|has|with|known|history of|diagnosed with) anorexia"
)
ED_INSTABILITY = any_of(
    SYNCOPE,
    CHEST_PAIN,
    HYPOTENSION,
    SEIZURE,
    CONFUSED,
    HEART_RATE + r"(?:[2-3]\d|4[0-5])\b|\bbradycardi\w*"
    r"|slow (?:heart ?beat|heart rate|pulse)|irregular (?:heart ?beat|pulse)|palpitations?",
    r"\bbmi\s*(?:of|is|was|:|=)?\s*(?:1[0-3]|[5-9])(?:\.\d+)?(?!\.?\d)",
    r"(?:potassium|k\+?)\s*(?:of|is|was|:|=)?\s*(?:[12]\.\d+|3\.0)(?!\.?\d)|\bhypokala?emi\w*"
    r"|\bhypophosphata?emi\w*|\bhypoglyc(?:a)?emi\w*",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "neuroleptic_malignant",
        "Rigidity with fever, confusion, sweating or a raised CK on an antipsychotic, or after "
        "stopping levodopa",
        (
            "neuroleptic malignant syndrome (or parkinsonism–hyperpyrexia after stopping levodopa)",
            "serotonin syndrome",
            "sepsis, meningitis or encephalitis",
            "heat stroke",
        ),
        "Stop the antipsychotic (restart the dopaminergic drug if it was stopped); CK, U&E, "
        "LFT, FBC, cultures; IV fluids, active cooling and cardiac monitoring; benzodiazepine "
        "for agitation; critical care review — dantrolene or bromocriptine when severe.",
        (
            (ANTIPSYCHOTIC, RIGID, any_of(FEVER, CONFUSED, SWEATING, TACHYCARDIA, CK_HIGH)),
            (ANTIPSYCHOTIC, FEVER, any_of(CK_HIGH, r"\bmute\b|\bmutism\b")),
            (LEVODOPA_STOPPED, any_of(FEVER, RIGID, CONFUSED)),
        ),
        PatientAdvice(
            "A high temperature with stiff muscles or confusion while taking an antipsychotic",
            "Go to A&E now: a temperature with stiff muscles or confusion on these medicines "
            "can be a rare but serious reaction.",
        ),
    ),
    RedFlagRule(
        "serotonin_syndrome",
        "Clonus, myoclonus or tremor with fever, sweating, agitation or diarrhoea after a "
        "serotonergic drug",
        (
            "serotonin syndrome",
            "neuroleptic malignant syndrome",
            "anticholinergic or stimulant toxicity",
            "sepsis or encephalitis",
        ),
        "Stop every serotonergic drug; temperature, clonus and reflexes; IV fluids, cooling "
        "and cardiac monitoring; benzodiazepine for agitation and clonus; cyproheptadine if "
        "moderate (advice from TOXBASE or a poisons service); critical care for a high or "
        "rising temperature (sedation, paralysis and ventilation).",
        (
            (SEROTONERGIC, CLONUS, AUTONOMIC),
            (SEROTONERGIC, r"\btremor\w*|\bshaking\b|\btrembling\b|\bshivering\b", FEVER),
        ),
        PatientAdvice(
            "Twitching or jerking muscles, shaking, sweating or a high temperature after "
            "starting or increasing an antidepressant or similar medicine",
            "Go to A&E now: these can be serotonin syndrome, a reaction to too much of these "
            "medicines.",
        ),
    ),
    RedFlagRule(
        "lithium_toxicity",
        "A lithium level of 1.5 mmol/L or more, or vomiting, diarrhoea, coarse tremor, "
        "ataxia or confusion on lithium",
        (
            "lithium toxicity",
            "the precipitant: dehydration, acute kidney injury, an interacting drug (NSAID, "
            "ACE inhibitor, ARB, thiazide)",
        ),
        "Stop lithium; lithium level (12 hours after the last dose if possible), U&E, "
        "creatinine, calcium, TFT, ECG; IV fluids to restore volume; stop interacting drugs; "
        "haemodialysis for severe toxicity (reduced consciousness, seizures, arrhythmia, or a "
        "very high level with poor kidney function) — advice from TOXBASE or a poisons "
        "service.",
        ((LITHIUM_HIGH,), (LITHIUM, LITHIUM_TOXIC)),
        PatientAdvice(
            "Being sick, diarrhoea, a bad tremor, unsteadiness or confusion while taking lithium",
            "Go to A&E now and take your lithium record book: these can be signs of too much "
            "lithium in the blood.",
        ),
    ),
    RedFlagRule(
        "alcohol_withdrawal_severe",
        "Hallucinations, seizures or confusion after stopping or cutting down alcohol",
        (
            "delirium tremens",
            "alcohol withdrawal seizures",
            "Wernicke's encephalopathy",
            "another cause of confusion: hypoglycaemia, head injury, sepsis, hepatic "
            "encephalopathy",
        ),
        "Benzodiazepine now by a symptom-triggered or fixed regimen (oral chlordiazepoxide, or "
        "IV lorazepam or diazepam when fitting or delirious); parenteral thiamine (Pabrinex) "
        "before glucose; capillary glucose, U&E, magnesium, phosphate; look for infection, "
        "head injury and liver failure; nurse in a calm, well-lit room.",
        (
            (WITHDRAWAL, SEVERE_WITHDRAWAL),
            (ALCOHOL_EXCESS, WITHDRAWAL_SIGNS, any_of(SWEATING, TACHYCARDIA)),
        ),
        PatientAdvice(
            "Seeing or hearing things, a fit or confusion after stopping drinking",
            "Call 999 or go to A&E now: stopping heavy drinking suddenly can cause fits and "
            "a dangerous confusion that needs treatment in hospital.",
        ),
    ),
    RedFlagRule(
        "wernicke_encephalopathy",
        "Confusion, ataxia or eye-movement abnormalities in a patient who drinks heavily or is "
        "malnourished",
        (
            "Wernicke's encephalopathy",
            "hypoglycaemia",
            "head injury (subdural haematoma)",
            "hepatic encephalopathy",
            "alcohol withdrawal (delirium tremens)",
        ),
        "Parenteral thiamine at once (e.g. Pabrinex 2 pairs of ampoules IV three times a day) "
        "before or with any glucose, without waiting for confirmation; capillary glucose; CT "
        "head if there is any head injury, focal sign or falls; magnesium; look for "
        "withdrawal and liver failure.",
        (
            (ALCOHOL_EXCESS, any_of(CONFUSED, ATAXIA, EYE_SIGNS)),
            (MALNOURISHED, any_of(ATAXIA, EYE_SIGNS)),
        ),
        PatientAdvice(
            "Confusion, unsteady walking or problems with the eyes in someone who drinks heavily",
            "Go to A&E now: in someone who drinks heavily, these can be caused by a lack of "
            "vitamin B1 (thiamine), which can damage the brain for good unless treated "
            "quickly.",
        ),
    ),
    RedFlagRule(
        "eating_disorder_instability",
        "An eating disorder with syncope, chest pain, bradycardia, hypotension, a very low BMI "
        "or low potassium, phosphate or glucose",
        (
            "anorexia nervosa with medical instability",
            "cardiac arrhythmia (bradycardia, hypokalaemia, long QT)",
            "hypoglycaemia",
            "refeeding syndrome once feeding starts",
        ),
        "Medical risk assessment now: BMI, heart rate, lying and standing blood pressure, "
        "temperature, ECG (QTc), U&E with phosphate and magnesium, glucose; admit if high "
        "risk (e.g. BMI below 13, heart rate below 40, syncope, electrolyte disturbance); "
        "refeed with daily phosphate, potassium and magnesium and thiamine cover; joint "
        "medical and psychiatric care.",
        (
            (EATING_DISORDER, ED_INSTABILITY),
            (
                any_of(
                    r"\bbmi\s*(?:now |of |is |was |:)?\s*1[0-5](?:\.\d)?(?!\.?\d)",
                    r"\brestrict\w*|\bdieting\b|\bbarely eat\w*|skipping meals|\bcalorie\w*",
                ),
                any_of(HEART_RATE + r"(?:[2-4]\d)(?!\.?\d)", HYPOTENSION, LOW_TEMP),
                Absent(OLDER_ADULT),
            ),
        ),
        PatientAdvice(
            "An eating disorder with fainting, chest pain or a slow or irregular heartbeat",
            "Go to A&E now: with an eating disorder, fainting, chest pain or a slow or uneven "
            "heartbeat can mean the heart is in danger.",
        ),
    ),
)

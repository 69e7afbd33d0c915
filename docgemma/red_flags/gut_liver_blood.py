"""Rows of the red-flag table: the liver and bile ducts, and the blood (cholangitis,
decompensated cirrhosis, acute liver failure, hepatic vein thrombosis, drugs that stop the
marrow, no spleen, sickle cell disease and thrombotic microangiopathy)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ABDO_PAIN,
    BREATHLESS,
    CHEST_PAIN,
    CONFUSED,
    FEVER,
    HYPOTENSION,
    HYPOXIA,
    JAUNDICE,
    SEVERE,
    any_of,
    taking,
)
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule

RUQ_PAIN = any_of(
    r"(?:ruq|right upper quadrant|right upper abdominal|right hypochondri\w+) (?:pain|tenderness"
    r"|ache|discomfort)",
    r"pain (?:under|below) (?:my|his|her|the|their) (?:right )?ribs(?: on the right)?",
    r"murphy'?s sign (?:is )?positive|positive murphy'?s",
)
BILIARY = (
    r"\bgall ?stones?\b|\bbiliary\b|bile duct|\bcbd\b|\bercp\b|\bstent\b|\bcholecyst\w+"
    r"|\bcholangio\w*|gall ?bladder"
)
CIRRHOSIS = any_of(
    r"\bcirrho\w+|\bcirrhotic\b|\bascites\b|\bascitic\b|end[- ]stage liver|decompensated liver",
    r"chronic liver (?:disease|failure)|\barld\b|\bchild[- ]pugh\b",
    r"fluid (?:in|on|around) (?:my|his|her|their|the) (?:tummy|belly|abdomen|stomach)"
    r"|\bparacentes\w+|(?:tummy|belly|abdomen|fluid) (?:drained|tapped)",
)
LIVER_CONFUSED = any_of(
    CONFUSED,
    r"\bmuddled\b|not making sense|talking nonsense|\b(?:more |very )?sleepy\b|\bsleepier\b",
    r"\basterixis\b|liver flap|flapping tremor|\bencephalopath\w*",
)
LOW_URINE = (
    r"(?:not|hasn't|hardly|barely) (?:been )?(?:passing|passed|peeing|weeing) (?:much |any )?"
    r"(?:urine|water|pee)?|\boliguri\w+|\baki\b|acute kidney injury|creatinine (?:is )?"
    r"(?:rising|up|doubled)"
)
HEPATOMEGALY = (
    r"\bhepatomegaly\b|\b(?:enlarged|big|swollen|palpable) liver\b|\bliver (?:is )?(?:enlarged"
    r"|palpable|\d+ ?cm below)|\bliver edge (?:\w+ ){0,3}(?:below|palpable)"
)
ASCITES = any_of(
    r"\bascit(?:es|ic)\b|shifting dullness|fluid thrill",
    r"(?:abdominal|abdomen|tummy|belly) (?:distension|distention|is swollen|swelling)"
    r"|(?:distended|swollen) (?:abdomen|tummy|belly)",
    r"(?:jeans|trousers|clothes|skirt|waistband|belt)s? (?:\w+ ){0,3}(?:tight\w*|don't fit|no "
    r"longer (?:fit|do up|does up|fasten)|won't (?:do up|fasten))",
)
"""Fluid in the abdomen, as examined or as a patient notices it."""
PROTHROMBOTIC = any_of(
    r"combined (?:oral contraceptive )?pill|\bcocp?\b|\bocp\b|on the (?:contraceptive )?pill"
    r"|oestrogen|\bhrt\b",
    r"\bthrombophilia\b|factor v leiden|antiphospholipid|polycyth(?:a)?emi\w*|myeloproliferative"
    r"|\bjak2\b|\bpnh\b|paroxysmal nocturnal",
    r"\bpregnan\w+|\bpost-?partum\b",
)
"""Why hepatic veins clot: oestrogen, pregnancy, thrombophilia, a myeloproliferative disease."""
INR_HIGH = r"\binr\b\s*(?:of|is|was|:|=)?\s*(?:1\.[5-9]|[2-9](?:\.\d+)?|\d\d)(?!\.?\d)"
MARROW_DRUG = taking(
    r"clozapine|clozaril|carbimazole|methimazole|thiamazole|propylthiouracil|ptu"
    r"|sulfasalazine|sulphasalazine|deferiprone|methotrexate|metamizole|dipyrone|azathioprine"
)
"""Drugs whose patients are told to report a fever or sore throat at once."""
INFECTION_SIGNS = any_of(
    FEVER,
    r"sore throat|throat (?:is )?(?:sore|infection)|\bpharyngitis\b|\btonsillitis\b",
    r"mouth ulcers?|ulcers in (?:my|his|her|their) mouth|flu-?like|\bshivery\b|\bchills\b",
    r"\bneutrophils?\s*(?:count\s*)?(?:of|is|was|:|=)?\s*(?:0\.\d+|1\.[0-4]\d*)(?!\.?\d)",
)
NO_SPLEEN = any_of(
    r"\bsplenectom\w+|spleen (?:was |has been |had been )?(?:removed|taken out)",
    r"\bno spleen\b(?! (?:tender\w*|palpable|enlarge\w*|felt|tip))|without a spleen",
    r"\basplen\w+|\bhyposplen\w+",
)
SICKLE = r"\bsickle[- ]cell\b(?! trait)|\bsickle cell (?:disease|anaemia)|\bhb ?s[sc]\b"
SICKLE_DANGER = any_of(
    FEVER,
    CHEST_PAIN,
    BREATHLESS,
    HYPOXIA,
    r"(?:" + SEVERE + r"|bad|terrible) pain|(?:having|in|had) a (?:pain(?:ful)? )?crisis"
    r"|vaso-?occlusive",
    r"weak(?:ness)? (?:in|of) (?:one|his|her|my|the)|one[- ]sided weakness|slurred|facial droop",
    r"\bpriapism\b|erection",
    r"enlarg\w+ spleen|spleen (?:is )?(?:enlarg\w+|big|bigger)|\bsplenomegaly\b"
    r"|\bpale and (?:floppy|lethargic|tired)",
)
FRAGMENTS = (
    r"\bschistocytes?\b|red (?:cell|blood cell) fragments|fragmented red cells"
    r"|fragments on (?:the )?(?:blood )?film|\bmicroangiopathic\b|\bmaha\b"
)
PLATELETS_LOW = any_of(
    r"\bthrombocytopeni\w+|low platelets",
    r"\b(?:platelets?|plts?)\s*(?:count\s*)?(?:of|is|was|:|=)?\s*(?:[1-9]|[1-4]\d)(?!\.?\d)",
)
PLATELETS_VERY_LOW = (
    r"\b(?:platelets?|plts?)\s*(?:count\s*)?(?:of|is|was|:|=)?\s*(?:[1-9]|[12]\d)(?!\.?\d)"
)
LITTLE_URINE = (
    r"(?:hardly any|few|fewer|no|not many) (?:wet )?(?:nappies|diapers)|(?:reduced|low|poor)"
    r" urine output|\boligur\w+|\banuri\w+|(?:hardly|barely|not) (?:\w+ )?(?:passing|passed|"
    r"weeing|peeing)"
)
HAEMOLYSIS = r"\bha?emoly\w+|\bldh\b|\bhaptoglobin\b|\baki\b|acute kidney injury|bloody diarrh\w+"

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "cholangitis",
        "Fever with jaundice, or with right upper quadrant pain and gallstones or a biliary stent",
        (
            "acute cholangitis (obstructing stone, stricture or tumour)",
            "gangrenous or perforated cholecystitis",
            "liver abscess",
        ),
        "Blood cultures, FBC, CRP, LFT, lactate; IV fluids and IV antibiotics per the local "
        "biliary sepsis policy; ultrasound for duct dilatation and stones; biliary drainage "
        "(ERCP) urgently if shocked or not improving, otherwise within 24–48 hours; senior "
        "surgical or gastroenterology review.",
        ((FEVER, JAUNDICE), (FEVER, RUQ_PAIN, BILIARY)),
        PatientAdvice(
            "Yellow skin or eyes with a high temperature",
            "Go to A&E now: yellow skin or eyes with a high temperature can be a serious "
            "infection of the bile ducts.",
        ),
    ),
    RedFlagRule(
        "cirrhosis_decompensation",
        "Fever, abdominal pain, confusion, drowsiness or falling urine output in a patient "
        "with cirrhosis or ascites",
        (
            "spontaneous bacterial peritonitis or other sepsis",
            "gastrointestinal (variceal) bleeding",
            "hepatic encephalopathy and its precipitant",
            "acute kidney injury (hepatorenal syndrome)",
            "hypoglycaemia",
        ),
        "Diagnostic ascitic tap at once, before antibiotics (neutrophils above 250 per mm³ "
        "mean SBP), with ascitic fluid in blood-culture bottles and blood cultures; IV "
        "antibiotics and IV albumin for SBP; glucose, FBC, U&E, LFT, INR; look for bleeding "
        "(rectal examination); stop diuretics and nephrotoxic drugs if the kidneys are "
        "failing; lactulose for encephalopathy; hepatology review.",
        ((CIRRHOSIS, any_of(FEVER, ABDO_PAIN, LIVER_CONFUSED, LOW_URINE, HYPOTENSION)),),
        PatientAdvice(
            "Liver cirrhosis or fluid in the tummy with a temperature, tummy pain, confusion "
            "or sleepiness",
            "Go to A&E now: with cirrhosis, a temperature, tummy pain or new confusion can be "
            "an infection of the tummy fluid, bleeding or the liver failing.",
        ),
    ),
    RedFlagRule(
        "acute_liver_failure",
        "Jaundice with confusion or drowsiness, or a prolonged INR with very high transaminases",
        (
            "acute liver failure (paracetamol, viral hepatitis, drug-induced, acute fatty liver "
            "of pregnancy, other)",
            "hepatic encephalopathy with cerebral oedema",
            "hypoglycaemia",
        ),
        "INR, glucose (hourly), LFT, U&E, lactate, blood gas, paracetamol level, viral "
        "serology; IV acetylcysteine for any paracetamol exposure or an unknown cause; IV "
        "glucose for hypoglycaemia; no sedatives; early discussion with a liver transplant "
        "unit (King's College criteria).",
        (
            (JAUNDICE, any_of(LIVER_CONFUSED, INR_HIGH)),
            (
                INR_HIGH,
                r"\b(?:alt|ast|transaminases?)\s*(?:of|is|was|:|=|in the)?\s*(?:thousands"
                r"|[1-9]\d{3,})",
            ),
        ),
        PatientAdvice(
            "Yellow skin or eyes with confusion or unusual sleepiness",
            "Go to A&E now: yellow skin or eyes with confusion or sleepiness can mean the liver "
            "is failing.",
        ),
    ),
    RedFlagRule(
        "hepatic_vein_thrombosis",
        "Abdominal pain, tender hepatomegaly and ascites, especially with oestrogen, pregnancy "
        "or a prothrombotic disorder",
        (
            "Budd-Chiari syndrome (hepatic vein thrombosis)",
            "portal vein thrombosis",
            "hepatocellular carcinoma or liver metastases",
            "right heart failure or constrictive pericarditis",
        ),
        "Doppler ultrasound of the hepatic veins, IVC and portal vein today (CT or MR "
        "venography if unclear); LFT, INR, FBC (myeloproliferative disease), ascitic tap "
        "(high serum-ascites albumin gradient, high protein); stop oestrogens; anticoagulation "
        "once confirmed; thrombophilia and JAK2 screen; urgent hepatology referral.",
        (
            (ASCITES, any_of(HEPATOMEGALY, RUQ_PAIN), PROTHROMBOTIC),
            (HEPATOMEGALY, RUQ_PAIN, ASCITES),
        ),
    ),
    RedFlagRule(
        "marrow_drug_infection",
        "Fever, sore throat or mouth ulcers in a patient on clozapine, an antithyroid drug, "
        "sulfasalazine, methotrexate or another drug that can cause agranulocytosis",
        ("drug-induced agranulocytosis with neutropenic sepsis",),
        "FBC with a differential count now (the same day); withhold the drug until the "
        "neutrophil count is known; if neutrophils are below 1.0 × 10⁹/L or the patient is "
        "unwell, treat as neutropenic sepsis — blood cultures and IV broad-spectrum "
        "antibiotics within the hour; tell the prescriber (for clozapine, the monitoring "
        "service).",
        ((MARROW_DRUG, INFECTION_SIGNS),),
        PatientAdvice(
            "A temperature, sore throat or mouth ulcers while taking a medicine such as "
            "clozapine, carbimazole, sulfasalazine or methotrexate",
            "Go to A&E now, or contact the doctor who prescribes it straight away, for a blood "
            "count today: these medicines can rarely stop the body making the white cells "
            "that fight infection.",
        ),
    ),
    RedFlagRule(
        "asplenic_fever",
        "Fever in a patient without a functioning spleen",
        (
            "overwhelming post-splenectomy infection (pneumococcal, meningococcal, "
            "Haemophilus sepsis)",
            "malaria, if travelled",
        ),
        "Treat as sepsis at once: blood cultures and IV broad-spectrum antibiotics (e.g. "
        "ceftriaxone) within the hour, without waiting for signs of shock; lactate and "
        "fluids; blood film for malaria after travel.",
        ((NO_SPLEEN, FEVER),),
        PatientAdvice(
            "A high temperature when you have no spleen",
            "Take your emergency antibiotics if you have them and go to A&E now: without a "
            "spleen, an infection can become life-threatening within hours.",
        ),
    ),
    RedFlagRule(
        "sickle_cell_emergency",
        "A person with sickle cell disease with fever, chest pain, breathlessness, severe "
        "pain, neurological symptoms, priapism or a pale child with a large spleen",
        (
            "acute chest syndrome",
            "sepsis (functional asplenia)",
            "stroke",
            "splenic sequestration or aplastic crisis",
        ),
        "Analgesia within 30 minutes of arrival (an opioid if the pain is severe), reassessed "
        "every 30 minutes; oxygen if hypoxic; FBC and reticulocytes (a fall from the usual "
        "haemoglobin suggests sequestration or aplastic crisis), group and save, blood "
        "cultures; chest X-ray for chest symptoms or fever; IV antibiotics for fever; "
        "incentive spirometry; haematology now — exchange transfusion for acute chest "
        "syndrome or stroke.",
        ((SICKLE, SICKLE_DANGER),),
        PatientAdvice(
            "Sickle cell disease with a temperature, chest pain, trouble breathing, severe "
            "pain or weakness",
            "Go to A&E now: with sickle cell disease, a temperature, chest pain, breathlessness, "
            "sudden weakness or severe pain needs treatment straight away.",
        ),
    ),
    RedFlagRule(
        "thrombotic_microangiopathy",
        "Thrombocytopenia with red-cell fragments, haemolysis, confusion or kidney injury",
        (
            "thrombotic thrombocytopenic purpura",
            "haemolytic uraemic syndrome",
            "disseminated intravascular coagulation",
            "HELLP syndrome (in pregnancy)",
        ),
        "Blood film reviewed now; reticulocytes, LDH, bilirubin, haptoglobin, direct "
        "antiglobulin test, clotting with fibrinogen, creatinine, troponin, pregnancy test; "
        "ADAMTS13 taken before any plasma; no platelet transfusion unless bleeding is "
        "life-threatening; haematology now for emergency plasma exchange if TTP is possible.",
        (
            (FRAGMENTS, PLATELETS_LOW),
            (PLATELETS_VERY_LOW, any_of(HAEMOLYSIS, CONFUSED)),
        ),
    ),
    RedFlagRule(
        "bloody_diarrhoea_kidneys",
        "Bloody diarrhoea followed by pallor, puffiness, little urine or low platelets",
        (
            "haemolytic uraemic syndrome (Shiga toxin E. coli)",
            "thrombotic thrombocytopenic purpura (in an adult)",
        ),
        "FBC with film, U&E, LDH, stool culture for Shiga toxin E. coli; strict fluid balance "
        "and daily weights; no antibiotics or antimotility drugs; nephrology (paediatric for "
        "a child) the same day, as dialysis may be needed; haematology if TTP is possible.",
        (
            (
                r"bloody (?:diarrh\w+|stools?|poo)|blood in (?:the |his |her )?"
                r"(?:diarrh\w+|stools?|poo)",
                any_of(
                    LITTLE_URINE,
                    PLATELETS_LOW,
                    r"\bpale\b|\bpallor\b|\bpuffy\b|\boedema\w*"
                    r"|\baki\b|acute kidney",
                ),
            ),
        ),
        PatientAdvice(
            "Bloody diarrhoea followed by paleness, puffiness or hardly passing urine",
            "Go to A&E now: after bloody diarrhoea, paleness or hardly any urine can mean the "
            "kidneys are affected.",
        ),
    ),
)

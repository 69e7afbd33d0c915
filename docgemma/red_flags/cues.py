"""Regular-expression groups the rows share: how clinicians and patients say a finding.

Each group matches lower-case text whose apostrophes are normalised to ``'`` and whose
"cannot" reads "can't" (``match.normalise``). A group is a finding, not a diagnosis:
"subarachnoid haemorrhage" in a question does not fire the headache row, "worst headache
of her life" does.
"""

from __future__ import annotations

from datetime import date

from docgemma.red_flags.rule import Fact


def any_of(*patterns: str) -> str:
    """One regex group matching any of ``patterns``."""
    return "|".join(f"(?:{p})" for p in patterns)


WORD = r"(?!(?:no|not|never|without|nor|neither|denies|denied)\b)\w+"
"""Any one word but a negation: the filler a cue allows between its parts. The matcher looks
for a negation only before a cue's match, so a gap that took "no" ("left leg pain, no
swelling") would affirm what the text denies."""


def taking(names: str) -> str:
    """A patient on one of the drugs ``names`` (a regex alternation), as a case states it
    ("on clozapine", "started lithium", "sertraline 100 mg"), not a question naming the
    drug ("can methotrexate cause mouth ulcers?")."""
    return (
        r"\b(?:on|take|taking|takes|taken|took|started|starting|prescribed|receiving|uses|using|"
        r"stopped|after|been on|course of|dose of|increased|increasing|added|adding|prn|im|iv"
        r"|depot) (?:\w+ ){0,3}?"
        rf"(?:{names})\b|\b(?:{names})\b (?:for|since|started|treatment|therapy|patient|user"
        r"|dose|was (?:started|increased|added)|added (?:to|on)|\d+ ?(?:mg|micrograms?)\b|od\b"
        r"|bd\b|daily|weekly|depot|injections?|increased|x ?\d|(?:\d+ ?(?:mcg"
        r"|micrograms?)? ?)?patch)"
    )


WHOSE = r"(?:my|his|her|their|the|your)"
PRESENTS = r"\bpresent(?:s|ed|ing)\b|\b(?:came|comes|brought) in\b|\bpresentation\b"
"""A clinician describing a case."""
SUDDEN = (
    r"\b(?:sudden(?:ly)?|abrupt(?:ly)?|acutely|explosive|out of nowhere)\b|\bacute\b(?! (?:options?"
    r"|treatments?|management|therap\w+|medicines?|medications?|care|setting|ward|admissions?))"
)
"""A sudden onset ("acute breathlessness"; not "an acute treatment")."""

VISION_LOSS = any_of(
    r"(?:loss of|lost|losing|loses|blurred|blurry|blurring of|double) (?:the )?(?:vision|sight)",
    r"(?:vision|sight) (?:is |was )?'?(?:like (?:a )?(?:snowstorm|snow|fog|mist)|snowy|misty"
    r"|foggy|hazy|greys out|grays out|goes (?:grey|gray|dark|black))|visual obscurations?",
    r"(?:vision|sight) (?:loss|went|has gone|is blurred|blurred)",
    r"can't see (?:out of|with)|curtain (?:over|across|coming down)|\bamaurosis\b",
    r"visual (?:loss|disturbance|changes)|\bdiplopia\b",
)
"""Loss or disturbance of sight."""
CHEST_PAIN = any_of(
    r"chest (?:pain|tightness|pressure|discomfort)",
    rf"(?:pain|tightness|pressure|discomfort) in {WHOSE} chest",
    r"chest (?:hurts|is tight|feels (?:tight|heavy|crushed))",
    r"(?<!stable )\bangina\b|\bretrosternal pain\b",
    rf"(?:pain|tightness|pressure|discomfort) (?:behind|under|across) (?:{WHOSE} )?"
    r"(?:breast ?bone|sternum)\b",
)
CHEST_PAIN_FEATURE = any_of(
    r"\b(?:crushing|heavy|central|severe|radiating|exertional|pleuritic|tearing|ripping)\b"
    r"(?! (?:bench|lifting|weights?|lift|squats?|deadlifts?|gym|session))",
    SUDDEN,
    PRESENTS,
)
RADIATION = (
    r"(?:spread(?:ing|s)?|going|goes|radiat(?:es|ing)|moving|shooting) (?:in)?to "
    rf"(?:(?:{WHOSE}|both) )?(?:left |right )?(?:arm|jaw|neck|back|shoulder)s?"
)
SWEATING = r"sweat(?:ing|y)|clammy|diaphore\w+"
BREATHLESS = any_of(
    r"breathless(?:ness)?",
    r"short(?:ness)? of breath|\bsob\b|out of breath",
    r"\bdyspn(?:o)?ea\b|\bdyspnoeic\b|\bdyspneic\b|\btachypn(?:o)?e\w*",
    r"can't (?:breathe|get my breath|catch (?:my|his|her) breath)",
    r"(?:struggling|difficulty|hard|trouble) (?:to )?breath(?:e|ing)",
    r"respiratory distress|gasping|puffed out|out of puff",
)
WHEEZE = r"wheez(?:e|ing|y)|bronchospasm"
HYPOXIA = any_of(
    r"\bhypox\w+|\bdesaturat\w+",
    r"\b(?:spo2|sats?|saturations?|o2 sat\w*|oxygen saturation)\s*(?:of|is|was|at|:|=|down to)?"
    r"\s*(?:[4-8]\d|9[01])\s*%",
)
HYPOTENSION = any_of(
    r"\bhypotensi\w+|low blood pressure|\bin shock\b|\bshocked\b|\bperi-?arrest\b",
    r"\b(?:bp|blood pressure|b/p)\s*(?:of|is|was|at|only|:|=|down to|dropped to|fell to)?\s*"
    r"(?:[4-8]\d|9\d)\s*(?:/|over)\s*\d{2,3}\b",
    r"\b(?:sbp|systolic)\s*(?:of|is|was|at|:|=)?\s*(?:[4-8]\d)\b",
)
HEART_RATE = (
    r"\b(?:hr|heart rate|pulse(?: rate)?|ventricular rate)\s*(?:today|now|on arrival)?\s*"
    r"(?:of|is|was|at|:|=|only)?\s*"
)
"""The words before a heart rate's value; the value follows."""
RESP_RATE = r"\b(?:rr|resp(?:iratory)? rate)\s*(?:of|is|was|at|:|=)?\s*"
"""The words before a respiratory rate's value; the value follows."""
TACHYCARDIA = any_of(
    r"\btachycardi\w*",
    r"\b(?:hr|heart rate|pulse|p)\s*(?:of|is|was|at|:|=)?\s*1[1-9]\d\b",
    r"\b(?:af|atrial fibrillation|atrial flutter|svt)\s*(?:at|of|rate|with a rate of)?\s*1[2-9]\d",
)
OLDER_ADULT = any_of(
    r"\b(?:6[5-9]|[7-9]\d|10\d) ?(?:m|f|yo|y/o|yrs?|years?)\b|\b(?:6[5-9]|[7-9]\d|10\d)-year-old",
    r"\belderly\b|\bcare home\b|\bnursing home\b|\bfrail\b",
)
"""A patient of 65 or more, as a clinician writes it ("82F", "an elderly man")."""
BP_WORDS = r"\b(?:bp|blood pressure|b/p)(?:\s+[a-z]+){0,4}?\s*(?:of|is|was|at|:|=|up to)?\s*"
"""A blood-pressure reading's words before its value ("BP at the pharmacy was")."""
SYNCOPE = r"\bsyncop\w*|\bfaint(?:ed|ing)?\b|passed out|\bcollaps\w+|black(?:ed)? out|blackout"
FEVER = any_of(
    r"(?<!hay )\bfever\w*(?! (?:vaccin\w+|jabs?))|\bfebrile\b|\bpyrexi\w*|\brigors?\b",
    r"high temperature|temperature of 3[89]|\btemp(?:erature)?\s*(?:of|is|was|:)?\s*3[89]",
    r"\b3[89](?:\.\d)? ?(?:c|°c|degrees)\b",
    r"(?<!')\bt\s*[:=]?\s*(?:3[89]|4[0-2])(?:\.\d)?(?!\.?\d)",
    r"feels? (?:very )?hot|\bspik(?:ed|ing) (?:a (?:temp\w*|fever) (?:of )?|to )?(?:3[89]|4[01])\b",
    r"\b(?:has|had|have|with|got|running|runs) (?:got )?a (?:high |raised |very high )?"
    r"temp(?:erature)?\b(?!\s*(?:of|is|was|:)?\s*(?:3[0-7]|9\d)\b)",
)
LOW_TEMP = any_of(
    r"(?<!room )(?<!ambient )(?<!outside )(?<!water )(?<!air )\b(?:core |rectal |tympanic "
    r"|oesophageal )?temp(?:erature)?\s*(?:of|is|was|:|=|only|down to)?\s*(?:2\d|3[0-4])"
    r"(?:\.\d)?(?!\.?\d)(?! ?(?:weeks|days|years|hours|min))|\bhypothermic\b",
    r"(?<!')(?<!troponin )(?<!trop )(?<!hs )\bt\s*[:=]?\s*(?:2\d|3[0-4])\.\d(?!\.?\d)"
    r"(?!\s*(?:ng|pg|mmol|%))",
)
"""A core temperature below 35 °C."""
LOW_GRADE_FEVER = any_of(
    r"(?<!')\bt\s*[:=]?\s*37\.[5-9]\b|\btemp(?:erature)?\s*(?:of|is|was|:)?\s*37\.[5-9]\b",
    r"\blow[- ]grade (?:fever|temp\w*|pyrexi\w*)",
)
"""A temperature of 37.5 to 37.9 °C: a fever that an infection of the brain may not exceed."""
CONFUSED = (
    r"\bconfus(?!ing)\w+\b(?! (?:about|by|over|as to|whether|with))|\bdelirium\b|\bdelirious\b"
    r"|altered mental|\bdrows\w+|\bagitated\b|\bmuddled\b"
)
HEADACHE = r"headache|\bcephalgia\b|head (?:pain|hurts)"
NECK_STIFF = any_of(
    r"stiff neck|neck (?:is )?stiff|neck stiffness|nuchal rigidity|\bmeningism\w*",
    r"\bkernig\w*|\bbrudzinski\w*",
    r"(?:groans?|groaning|grimac\w+|winces?|wincing|cries|screams?) (?:\w+ ){0,3}(?:when|if|as) "
    r"(?:\w+ ){0,2}(?:head|neck) (?:is |was )?(?:moved|flexed|bent)",
    r"(?:groans?|cries|screams?|winces?|grimaces?) (?:\w+ ){0,2}when (?:we|you|i|they) (?:move|bend"
    r"|flex) (?:his|her|their|the) (?:head|neck)",
    r"(?:neck (?:pain|hurts)|pain) (?:on|with) (?:neck )?(?:flexion|flexing)|can't (?:touch|put) "
    r"(?:his|her|their) chin (?:to|on) (?:his|her|their) chest",
)
PHOTOPHOBIA = r"photophobi\w+|light hurts|dislike (?:of )?bright light"
ABDO_PAIN = any_of(
    r"(?:tummy|stomach|abdominal|abdo|abdomen|belly|pelvic|epigastric|loin|flank|iliac fossa"
    r"|rlq|llq|ruq|luq|peri-?umbilical|suprapubic) ?(?:pain|ache|cramps?|tenderness)",
    rf"(?:pain|cramps?|ache) (?:low (?:down )?|high )?in {WHOSE} (?:(?:right|left|r|l) )?"
    r"(?:lower |upper )?(?:tummy|stomach|belly|abdomen|pelvis)",
    r"(?:lower |upper )?(?:abdomen|abdo|tummy|belly) (?:is |was |very |quite )*tender\b",
)
BACK_PAIN = any_of(
    r"back ?(?:pain|ache)|\bsciatica\b|\blumbago\b|\blbp\b|pain in (?:my|his|her|the) back",
    r"\bpain '?(?:\w+ ){0,2}'?(?:in|across|at|over) (?:the )?(?:bottom|base|small|lower part) of "
    r"(?:my|his|her|the|their) back",
)
BLEEDING = any_of(
    r"\bbleed(?:ing|s)?\b|losing blood|passing blood|blood clots|\bspotting\b|blood on (?:her |my "
    r"|the )"
    r"?pads?\b",
    r"\bhaemorrhag\w+|\bhemorrhag\w+|\bpv (?:bleed\w*|blood)",
)
HEAD_INJURY = any_of(
    r"head (?:injury|trauma|strike)|\bhit (?:my|his|her|their) head|banged (?:my|his|her) head",
    r"\bfell\b.{0,30}\bhead\b|\bhead\b.{0,20}\b(?:fall|fell)\b",
    r"\b(?:bumped|banged|bashed|hit|knocked|struck|kicked|punched|kneed|elbowed|(?:a|took a|got"
    r" a) (?:blow|knock|kick|punch|knee|elbow|bang))(?: \w+){0,2} (?:to|on|into|against) "
    r"(?:the |his |her |my |their )?(?:head|forehead|temple|skull)\b",
    r"\b(?:bumped|banged|bashed|knocked) (?:the |his |her |my |their )?(?:head|forehead|temple)",
)
ANTICOAGULANT = any_of(
    r"\banticoagula\w+|\bwarfarin\b|\bapixaban\b|\brivaroxaban\b|\bdabigatran\b|\bedoxaban\b",
    r"\bdoac\b|blood thinners?",
)
PROCEDURE = (
    r"(?:[tu]kr|thr|tka|tha|cabg|avr|mvr|evar|turp|turbt|orif|dhs|lscs|ercp|lap(?:aroscopic)? "
    r"\w+|arthroplasty|laparotomy)\b"
)
"""Operations clinicians name by their abbreviations (a knee replacement as "TKR")."""
POST_OP = any_of(
    r"post-? ?op(?:erative(?:ly)?)?\b|\bpod ?#?\d",
    r"post-?(?:\w+ )?surgery",
    r"(?:day \d+|(?:\d+|two|three|four|five|six|seven|ten) days?|(?:first|second|third|fourth"
    r"|fifth) (?:post-?op(?:erative)? )?day)"
    r" (?:after|post|following) (?:[\w'-]+ ){0,3}(?:surgery|operation|op\b|\w+ectomy|\w+plasty"
    r"|[a-z]+'s\b"
    r"|\w+otomy|\w+ostomy|replacement|repair|resection|transplant|section|fixation|procedure|"
    + PROCEDURE
    + r")",
    r"\b(?:d|pod|day) ?\d{1,2} (?:post|after|following)[- ]?(?:\w+ ){0,2}?(?:op\b|"
    + PROCEDURE
    + ")",
    r"(?:after|following|since) (?:an? |the |my |his |her )?(?:\w+ )?(?:surgery|operation)",
    r"\b(?:s/p|status post|post)[- ](?:\w+ ){0,2}?(?:" + PROCEDURE + r"|\w+ectomy|\w+otomy"
    r"|\w+plasty)",
    r"\b(?:surgery|operation|repair|replacement|resection|\w+ectomy|\w+otomy|\w+plasty|"
    + PROCEDURE
    + r") (?:\w+ )?(?:\d|two|three|four|five|six|seven) days ago",
    r"\b(?:had|underwent) (?:an? |my |his |her )?(?:\w+ )?(?:surgery|operation)",
)
_EARLIER_YEARS = "|".join(str(year) for year in range(1940, date.today().year - 1))
LONG_AGO = (
    r"\b(?:\d+|a few|many|several|two|three|four|five|ten|twenty) (?:years|yrs)(?: ago|\b(?= "
    r"(?:previously|before)))|\byears ago\b|\bas a (?:child|teenager)\b"
    rf"|\bin (?:{_EARLIER_YEARS})\b"
)
"""Something that happened years ago (or in a year before last): a history, not today's
presentation."""
DIABETES = r"\bdiabet\w+|\bt[12]dm\b|\btype [12]\b|\biddm\b"
CANCER = (
    r"\bcancer\b|\bmalignan\w+|\bmetasta\w+|\bmyeloma\b|\bcarcinoma\b|\blymphoma\b"
    r"|\b(?:lung|breast|prostate|bowel|colon|colorectal|renal|ovarian|squamous|small cell) ca\b"
)
PAIN_OUT_OF_PROPORTION = any_of(
    r"(?:pain|tenderness) (?:is )?(?:way |far |totally |completely |wildly )?out of proportion"
    r"|disproportionate pain",
    r"\bpain\b[^.;]{0,40}\bbut (?:the )?(?:skin|wound|area|rash|leg|arm|limb) (?:is |looks )?"
    r"(?:only )?(?:mildly|slightly|barely|minimally) (?:red|pink|swollen|inflamed|erythematous"
    r"|warm)",
    r"(?:pain|hurts|painful|unbearable)'?(?: \w+){0,3}[\s,—–-]+(?:way |much |far |a lot )?more than"
    r" (?:what )?(?:i|you|we|she|he) can see",
    r"(?:way |much |far |a lot )?more pain than (?:it|the skin|the wound|the rash|they|this) "
    r"(?:looks|appears)",
    r"(?:pain|hurts|painful)(?: \w+){0,4}[\s,—–-]+(?:way |much |far |a lot )?(?:more|worse) than "
    r"(?:it|the skin|the wound|the rash|they|this) (?:looks|appears)",
)
SEVERE = r"\bsevere\b|really bad|agonising|agonizing|excruciating|\bworst\b|\bintense\b"
VOMITED_BLOOD = (
    r"(?:vomit(?:ing|ed|s)?|throwing up|threw up|brought up) (?:up )?(?:[\w~.'-]+ ){0,4}?'?blood\b"
    r"(?! ?(?:pressure|tests?|sugars?|glucose|results?|counts?|cultures?|gas))"
)
"""Blood vomited ("vomited ~500ml bright red blood"), not a blood test taken after vomiting."""
UPPER_GI_BLEED = any_of(r"\bha?ematemesis\b|\bmela?ena\b|coffee[- ]grounds?", VOMITED_BLOOD)
"""Blood vomited or passed black: a bleed from the upper gut."""
VOMITING = r"\bvomit\w*|being sick|throwing up|\bemesis\b"
DIARRHOEA = r"\bdiarrh\w+|the runs\b|loose (?:stools|bowels|poo)"
SEIZURE = any_of(
    r"\bseizures?\b|\bseizing\b|\bconvuls\w+|\bfitting\b",
    r"(?:had|having|has) (?:a |another |several |multiple |two |three )?fits?\b",
)
JAUNDICE = any_of(
    r"\bjaundic\w+|\bicter(?:ic|us)\b",
    r"yellow (?:skin|eyes|sclera\w*|tinge)",
    r"(?:skin|eyes|whites of (?:my|his|her|their|the) eyes) (?:look |looks |is |are |has |have "
    r"|turned |gone |going |become |becoming |looking )+(?:a bit |quite |very )?yellow",
    r"\b(?:baby|he|she|they|i|newborn|infant|son|daughter|old)(?:'s)?(?:\s+(?:already|now|really"
    r"|has|is|have|had|been))*"
    r"\s+(?:looks?|looking|is|gone|turned|went|seems?|going|turning)\s+(?:a (?:bit|little) "
    r"|quite |very |slightly )?yellow",
)
INJECTS_DRUGS = any_of(
    r"\bivdu\b|\bpwids?\b|injecting drug|intravenous drug (?:use|user|abuse)"
    r"|\biv drug (?:use|abuse)",
    r"inject(?:s|ing|ed)? (?:\w+ )?(?:drugs|heroin|crack|speed|cocaine|meth\w*)",
    r"(?:skin|muscle) popping|shoots? up\b",
)
"""Injecting drug use: a history, not a diagnosis."""
CHILD_AGE = any_of(
    r"\b(?:[1-9]|1[0-5]) ?(?:-| )?(?:years?|yrs?)[- ]old|\b(?:[1-9]|1[0-5]) ?(?:yo|y/o)\b",
    r"\b\d{1,2} ?(?:-| )?(?:months?|weeks?|wks?|days?)[- ]old|\b\d{1,2}/52 old\b|\bpa?ediatric"
    r"|\bneonat\w+",
    r"\b(?:child|toddler|baby|infant|newborn) (?:aged|of)\b",
)
"""A patient whose age makes them a child (not a relative: "per daughter")."""
CHILD = any_of(
    r"\b(?:child|children|kid|kids|toddler|baby|babies|infant|boy|girl|son|daughter|newborn)\b",
    CHILD_AGE,
)
POSTPARTUM = any_of(
    r"\bpost-?partum\b|\bpost-?natal(?:ly)?\b|\bpuerper\w+",
    r"gave birth|(?:had|delivered|since having|since) (?:my|her|the|a|their|our) (?:baby|twins)",
    r"after (?:the |her |my |a )?(?:\w+ )?(?:birth|delivery|baby was born|caesarean|c-?section)",
    r"\b(?:days?|weeks?|hours?) (?:post-?partum|post-?delivery|after (?:giving birth|delivery"
    r"|the birth|her delivery|a caesarean|her caesarean|a c-?section))",
    r"\b(?:lscs|svd|nvd)\b|(?:caesarean|c-?section) (?:\w+ )?(?:days?|weeks?|hours?) ago",
    r"(?:after|since) (?:delivering|giving birth to|having) (?:her |my |the |a |their |our )?"
    r"(?:baby|babies|twins|triplets|son|daughter)",
    r"\b(?:baby|babies|twins|placenta) (?:was |were )?(?:delivered|born) (?:\w+ ){0,3}ago\b",
    r"\bafter (?:her |my |their )?(?:first|second|third|new) baby\b|placenta (?:\w+ )?delivered"
    r"|\bthird stage\b",
)
"""The weeks after a birth."""
ALCOHOL_EXCESS = any_of(
    r"(?<!non-)(?<!non )\balcoholic\b(?! (?:drinks?|beverages?))",
    r"alcohol[- ](?:dependen\w*|excess|misuse|abuse|use disorder|problem|related liver)",
    r"(?:heavy|chronic|excess\w*|harmful) (?:alcohol|drink\w*|etoh)|\betoh\b",
    r"drink(?:s|ing)? (?:heavily|too much|a lot|every day|all day|daily)"
    r"(?! (?:of )?(?:water|fluids?|milk|juice|tea|coffee|cola|squash|fizzy))",
    r"(?:a |one |two |\d )?bottles? of (?:vodka|whisky|whiskey|gin|rum|spirits|wine) (?:a|per"
    r"|every) (?:day|night)",
    r"\b\d+ (?:units|cans|pints) (?:a|per|each) (?:day|week)",
)
"""Alcohol dependence or heavy drinking, as a history."""
WEIGHT_LOSS = any_of(
    r"\bweight loss\b|\bwt loss\b|\b(?:losing|lost|lose) (?:a lot of |some |so much )?weight",
    r"\blost (?:about |around |nearly |over |almost )?(?:\d+(?:\.\d)?|a|half a|one|two|three"
    r"|four|five|six) ?(?:kg|kilos?|stone|st|lbs?|pounds)\b",
    r"\b\d+(?:\.\d)? ?(?:kg|kilos?|stone|lbs?) (?:of )?(?:weight |wt )?(?:loss|lost)\b",
    r"\b(?:looks?|looking|got|getting|gone|become|becoming) (?:much |a lot |a bit )?thinner\b"
    r"|(?:clothes|trousers|jeans|school uniform) (?:are |have been |getting )?"
    r"(?:hanging off|(?:too )?loose|baggy|falling down)",
)
"""Losing weight, as a patient or a clinician says it."""
HAEMOPTYSIS = any_of(
    r"\bha?emoptysis\b",
    r"cough(?:s|ed|ing)? up (?:\w+ ){0,3}?blood\b",
    r"cough(?:s|ed|ing)? (?:(?:some|a little|a bit of|specks of|flecks of|streaks of|bright red"
    r"|fresh) )?blood\b(?! (?:pressure|tests?|sugars?|counts?|results?|glucose|cultures?|gas))",
    r"(?:blood|bloody|blood-?stained|blood-?streaked)(?: \w+){0,2} (?:sputum|phlegm|spit)\b",
    r"(?:streaks?|specks?|flecks?|spots?) of blood (?:in|on) (?:the |his |her |my |their )?"
    r"(?:sputum|phlegm|spit|tissue)",
)
LIMP = any_of(
    r"\blimp(?:s|ing)?\b",
    r"(?:won't|will not|refus\w+ to|not|can't|stopped) (?:walk(?:ing)?|weight[- ]?bear(?:ing)?"
    r"|bear(?:ing)? weight|put(?:ting)? (?:any )?weight)",
)
"""A limp, or not walking or bearing weight."""

FACT_WORDS: dict[Fact, str] = {
    Fact.PREGNANT: any_of(
        r"\bpregnan\w+",
        r"\b\d{1,2} ?(?:weeks?|/40)(?: pregnant| gestation| of gestation| ga)\b|\bgestation",
        r"(?:i'm|i am|she's|she is|currently|at) \d{1,2} weeks\b(?! ago| old| post| after)",
        r"\bprimip\b|\bprimigravid\w*|\bmultigravid\w*",
        r"(?<![\d/.])\b(?:2\d|3\d|4[0-2])\+[0-6]\b(?! ?(?:years|yrs|y\b|units|iu|u\b|ml|mg|mmol))",
        r"\b(?:1[3-9]|[2-4]\d) ?f, (?:2\d|3\d|4[0-2]) (?:weeks|wks)\b(?! ago| of| after| post"
        r"| since| from)",
        r"\bg\d ?p\d\b|positive (?:pregnancy |urine |serum )?(?:test|hcg|b-?hcg)",
        r"\b(?:upt|pregnancy test|b-?hcg|hcg)\s*(?:is |was |came back |:)?\s*(?:\+ ?ve\b|positive)"
        r"|\+ ?ve (?:upt|pregnancy test)",
        r"(?<![\d/])\b(?:[4-9]|[1-3]\d|4[0-2])(?:\+[0-6])?/40\b",
        r"missed (?:a |my |her )?period|\bamenorrho?ea\b|\blmp\b.{0,25}?\b(?:[5-9]|[1-3]\d) ?"
        r"(?:weeks|wks|/52)",
        r"\b(?:[5-9]|[1-3]\d) ?(?:weeks?|wks) (?:since|after|from) (?:her|my|the|their|your) last "
        r"(?:menstrual )?period\b",
        r"\blast (?:menstrual )?period (?:was |started )?'?(?:over |more than |about |around "
        r"|roughly |nearly |approx\w* |~)?(?:[5-9]|[1-3]\d) ?(?:weeks?|wks) ago\b",
        r"\b(?:five|six|seven|eight|nine|ten|eleven|twelve) weeks (?:since|after|from) "
        r"(?:her|my|the|their|your) last (?:menstrual )?period\b",
        r"\bperiods? (?:is |are |was )?(?:\d{1,2} (?:days?|weeks?|months?) )?(?:late|overdue)\b",
        r"(?:^|[,;:(]|\b(?:she is|she's|i am|i'm|is now|now)|\b\d{1,2} ?f\b) *(?:\d{1,2}|an?"
        r"|one|two|three|four|five|six|seven|eight|nine|ten|a few) (?:days?|weeks?|wks?)"
        r" (?:late|overdue)\b"
        r"(?! (?:for|with|on|to|in|starting)\b)",
        r"\b(?:2\d|3\d|4[0-2]) ?(?:weeks|wks)\b(?! (?:old|ago|post|after|of age|since))"
        r"(?=[^.]{0,160}\b(?:baby|bump|pad|midwife|fetal|contractions|waters|ctg|tummy)\b)",
    ),
    Fact.YOUNG_INFANT: any_of(
        r"\b(?:[1-9]|1[0-2]) ?(?:-| )?(?:weeks?|wks?)[- ]old|\b(?:[1-9]|1[0-2])/52 old\b",
        r"\bnewborn|\bneonat\w+",
        r"\b(?:[1-9]|[1-8]\d) ?(?:-| )?days?[- ]old",
        r"\b(?:1|2|one|two) ?(?:-| )?months?[- ]old",
    ),
}
"""How text states each ``Fact`` when no caller passes it in."""

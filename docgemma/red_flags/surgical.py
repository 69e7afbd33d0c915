"""Rows of the red-flag table that need a surgeon today: a blocked bowel, a young woman who
collapses, an infected kidney behind a stone, a neck swelling after thyroid surgery, an
infected diabetic foot."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    ABDO_PAIN,
    BLEEDING,
    DIABETES,
    FEVER,
    HYPOTENSION,
    LONG_AGO,
    OLDER_ADULT,
    SYNCOPE,
    TACHYCARDIA,
    VOMITING,
    any_of,
)
from docgemma.red_flags.rule import Absent, PatientAdvice, RedFlagRule
from docgemma.severity import Severity

DISTENSION = any_of(
    r"(?:abdo\w*|belly|tummy|stomach) (?:is |was |looks )?(?:very |massively |grossly |hugely "
    r"|really )?(?:distended|bloated|swollen)",
    r"(?:abdominal|massive|gross|marked) distension|distended (?:and \w+ )?(?:abdo\w*|belly|tummy)",
)
NO_STOOL_OR_WIND = any_of(
    r"(?:not|n't|nor|unable to) (?:(?:been|yet|even|able to) )*(?:(?:opened (?:his |her |their "
    r"|the )?bowels|pooed|had a bowel (?:movement|motion)|passed (?:a )?stools?) (?:or|nor) )?"
    r"(?:passed|passing|pass) (?:any )?(?:wind|flatus|gas)",
    r"absolute constipation|\bno flatus\b",
)
"""No wind passed (with or without stool): the bowel is blocked, not merely slow."""
FAECULENT = r"\b(?:faeculent|feculent|faecal|fecal) vomit\w*|vomit\w* (?:\w+ )?(?:faeces|feces)"
GROIN_LUMP = (
    r"(?:lump|swelling|bulge|hernia) (?:\w+ ){0,2}(?:in|of) (?:the |her |his )?(?:\w+ )?groin"
    r"|groin (?:lump|swelling|bulge)|(?:inguinal|femoral) hernia"
)
STRANGULATED = any_of(
    VOMITING,
    r"irreducible|incarcerat\w+|strangulat\w+|(?<!non-)(?<!non )\btender\b|(?:painful|hard|red)"
    r" (?:lump|swelling)",
)
IRREDUCIBLE_LUMP = (
    r"(?:lump|swelling|bulge|hernia)\b[^.;]{0,60}?\b(?:can't|won't|unable to|couldn't|will not"
    r"|would not) (?:be )?(?:reduce|push\w* (?:it )?back|go back)"
)
"""A lump (a hernia) that will not go back: its bowel may be strangulated."""
ASCITES = r"\bascit\w+"
CHILDBEARING_WOMAN = any_of(
    r"\b(?:1[3-9]|[2-4]\d) ?(?:f|yo f|y/o f|yof)\b(?! ?(?:chest |intercostal |pigtail )?(?:drain"
    r"|catheter|cannula|foley|ng|tube|french|fr\b))",
    r"\b(?:1[3-9]|[2-4]\d) ?(?:-| )?(?:year|yr)s?[- ]old (?:woman|female|girl|lady)\b",
    r"\b(?:1[3-9]|[2-4]\d) ?(?:yo|y/o) (?:woman|female|girl|lady)\b",
    r"\b(?:woman|lady|girl|female) (?:aged |of )?(?:1[3-9]|[2-4]\d)\b",
    r"\b(?:woman|lady|female) in her (?:teens|twenties|thirties|forties|[1-4]0s)\b",
)
"""A woman or girl who could be pregnant, by her age as a clinician writes it ("31F")."""
PELVIC_SIGN = any_of(
    ABDO_PAIN,
    r"\bcramp(?:s|y|ing)\b|shoulder[- ]tip pain|pv bleed\w*|vaginal bleed\w*|\bspotting\b",
)
SHOCKED_OR_FAINT = any_of(SYNCOPE, HYPOTENSION)
OBSTRUCTED_URINE = any_of(
    r"hydroneph\w+|hydroureter\w*|pyonephros\w+",
    r"(?:ureteric|ureteral|renal|kidney) (?:stone|calcul\w+|colic|obstruction)",
    r"stone in (?:the |his |her )?(?:\w+ )?ureter",
    r"blocked (?:ureteric |nephrostomy )?(?:stent|tube)",
)
INFECTED = any_of(
    FEVER,
    r"\brigors?\b|\bseptic\b|\bsepsis\b",
    r"\b(?:wcc|white cells?|wbc)\s*(?:of|is|was|:|=)?\s*(?:1[3-9]|[2-9]\d)(?:\.\d+)?(?!\.?\d)",
)
NECK_OPERATION = (
    r"thyroidectomy|parathyroidectomy|thyroid (?:surgery|operation)|neck (?:dissection|surgery)"
    r"|carotid endarterectomy|anterior cervical (?:discectomy|fusion|spine surgery)|\bacdf\b"
)
NECK_SWELLING_OR_AIRWAY = any_of(
    r"neck (?:\w+ ){0,2}(?:swelling|swollen|tight|tense|bigger)|swelling (?:\w+ ){0,4}(?:neck"
    r"|wound|dressing)",
    r"\bstridor\b|noisy breathing|(?:difficulty|struggling) (?:\w+ )?breathing|\bhaematoma\b"
    r"|\bhematoma\b",
)
FOOT_ULCER = (
    r"(?:foot|toe|heel|plantar|mth|metatarsal\w*) (?:\w+ ){0,3}ulcer|ulcer (?:\w+ ){0,4}"
    r"(?:foot|toe|heel|mth|metatarsal\w*)"
)
BIG_SPLEEN = any_of(
    r"glandular fever|infectious mononucleosis|\bmono\b|\bebv\b|monospot|paul[- ]bunnell",
    r"(?:enlarged|big|large|palpable) spleen|\bsplenomegaly\b",
)
"""A spleen that is enlarged, as in glandular fever, and tears easily."""
LEFT_UPPER_PAIN = any_of(
    r"\b(?:l|left) upper (?:abdo\w*|quadrant|tummy) (?:pain|tender\w*)|\bluq (?:pain|tender\w*)"
    r"|tender (?:in the )?luq|left hypochondri\w+ (?:pain|tender\w*)|pain under the left ribs"
    r"|\bleft flank (?:pain|tender\w*)",
    r"(?:left |l )?shoulder[- ]tip pain|pain (?:\w+ ){0,3}(?:left |l )shoulder tip",
)
ABDOMINAL_BLOW = any_of(
    r"\btackled\b|\b(?:kicked|punched|kneed|elbowed|hit|struck|fell|landed) (?:\w+ ){0,3}"
    r"(?:abdo\w*|tummy|stomach|side|ribs|handlebars?)",
    r"\bhandlebar\w*|(?:blunt|abdominal) (?:abdominal )?(?:trauma|injury)|\brta\b|\bmvc\b"
    r"|road traffic|car (?:crash|accident)",
)
COLITIS = any_of(
    r"\bulcerative colitis\b|\buc\b|\bcrohn'?s\b|\bibd\b|\bcolitis\b",
    r"\bc\.? ?diff\w*|\bclostridi\w+ difficile|\bcdi\b",
)
DILATED_COLON = any_of(
    r"\b(?:transverse |sigmoid )?(?:colon|caecum|cecum) (?:diameter |dilated (?:to )?|measuring "
    r"|of |is |at )?(?:[6-9]|1\d)(?:\.\d)? ?cm\b",
    r"\bmegacolon\b|(?:dilated|distended) (?:transverse )?colon",
)
"""A colon 6 cm or wider on the film."""
FELL = r"\b(?:fell|fall|fallen|tripped|slipped|found on the floor)\b|\bfalls\b(?! clinic| risk)"
HIP = r"\b(?:hip|groin|femoral neck|neck of femur)\b(?! (?:is |was |looks? )?(?:fine|normal|ok))"
CANT_BEAR_WEIGHT = any_of(
    r"(?:pain|ache|tender\w*|painful)[^.;]{0,30}?\b(?:weight[- ]?bearing|on walking|on standing"
    r"|on movement|when (?:she|he|they) (?:walks|stands|moves))",
    r"(?:can't|unable to|won't|will not|struggling to) (?:weight[- ]?bear|bear weight|walk|stand"
    r"|get up)\b|\bnwb\b|\bnon-?weight[- ]?bearing\b|\boff (?:her|his|their) legs\b",
    r"\bmuch slower\b|\bshortened and (?:externally )?rotated\b",
)
"""Pain on bearing weight, or a patient who cannot since the fall."""
DEEP_FOOT_INFECTION = any_of(
    FEVER,
    r"probes? (?:\w+ ){0,2}(?:to |hits |touches )?bone|bone (?:is )?(?:exposed|visible|palpable)",
    r"\b(?:red|redness|hot|warm|swollen|spreading|smell\w*|pus|purulent|discharg\w*)\b",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "bowel_obstruction",
        "Vomiting with a distended abdomen or no stool or wind, or a painful lump in the groin "
        "that will not go back",
        ("bowel obstruction (volvulus, adhesions, tumour, incarcerated or strangulated hernia)",),
        "Nil by mouth, nasogastric tube and IV fluids; U&E, lactate; CT abdomen and pelvis; "
        "examine every hernial orifice; surgical review today; no laxatives or enemas before "
        "obstruction is excluded.",
        (
            (VOMITING, DISTENSION, Absent(ASCITES)),
            (VOMITING, NO_STOOL_OR_WIND),
            (DISTENSION, NO_STOOL_OR_WIND),
            (IRREDUCIBLE_LUMP,),
            (NO_STOOL_OR_WIND, any_of(ABDO_PAIN, r"\bcolick?y\b")),
            (FAECULENT,),
            (GROIN_LUMP, STRANGULATED),
        ),
        PatientAdvice(
            "Vomiting with a swollen tummy, or not passing wind or stools",
            "Go to A&E now: being sick with a swollen tummy and no wind can mean a blocked bowel.",
        ),
    ),
    RedFlagRule(
        "collapse_in_young_woman",
        "A woman of childbearing age who collapses or is shocked, with abdominal or pelvic pain, "
        "cramps or bleeding",
        (
            "ruptured ectopic pregnancy",
            "another cause of internal bleeding (ruptured ovarian cyst, splenic rupture)",
        ),
        "Pregnancy test now (urine or serum, whatever contraception she uses); two large-bore "
        "cannulae, FBC, crossmatch; bedside ultrasound for free fluid; gynaecology review at "
        "once if positive and shocked.",
        ((CHILDBEARING_WOMAN, SHOCKED_OR_FAINT, any_of(PELVIC_SIGN, TACHYCARDIA, BLEEDING)),),
    ),
    RedFlagRule(
        "splenic_rupture",
        "Left upper abdominal or left shoulder-tip pain after a blow to the abdomen, or with "
        "an enlarged spleen (glandular fever)",
        ("splenic rupture (haemoperitoneum)", "another intra-abdominal bleed"),
        "Two large-bore cannulae, FBC and crossmatch; FAST scan and CT abdomen with contrast "
        "when stable; surgical review now; no contact sport with an enlarged spleen.",
        (
            (LEFT_UPPER_PAIN, any_of(BIG_SPLEEN, ABDOMINAL_BLOW), Absent(LONG_AGO)),
            (BIG_SPLEEN, ABDOMINAL_BLOW, any_of(ABDO_PAIN, SHOCKED_OR_FAINT, TACHYCARDIA)),
            (BIG_SPLEEN, ABDO_PAIN, SHOCKED_OR_FAINT),
        ),
        PatientAdvice(
            "Pain in the upper left tummy or the left shoulder tip after a blow, or with "
            "glandular fever",
            "Go to A&E now: this pain after a knock to the tummy can be bleeding from the spleen.",
        ),
    ),
    RedFlagRule(
        "toxic_megacolon",
        "Colitis (inflammatory or infective) with a distended abdomen, fever and a fast heart, "
        "or a colon 6 cm or wider",
        ("toxic megacolon (risk of perforation)", "colonic perforation"),
        "Stop antimotility drugs (loperamide, opioids) and anticholinergics; IV fluids, "
        "electrolytes (potassium, magnesium); IV steroids in inflammatory colitis; for C. "
        "difficile, oral or nasogastric vancomycin with IV metronidazole (rectal vancomycin "
        "if there is an ileus); daily abdominal X-ray; colorectal surgical review today.",
        (
            (COLITIS, DILATED_COLON),
            (COLITIS, DISTENSION, any_of(FEVER, TACHYCARDIA)),
        ),
    ),
    RedFlagRule(
        "hip_fracture_after_fall",
        "Hip or groin pain on weight-bearing after a fall in an older adult, even when the "
        "X-ray shows no fracture",
        ("hip fracture (occult on plain X-ray)", "pubic ramus or acetabular fracture"),
        "Analgesia (consider a fascia iliaca block); if the X-ray is normal and pain on "
        "weight-bearing persists, MRI (or CT) the same day; keep non-weight-bearing until "
        "excluded; orthogeriatric review.",
        ((OLDER_ADULT, FELL, HIP, CANT_BEAR_WEIGHT),),
    ),
    RedFlagRule(
        "obstructed_infected_kidney",
        "Fever or sepsis with a ureteric stone, hydronephrosis or a blocked stent",
        (
            "infected obstructed kidney (pyonephrosis, urosepsis)",
            "emphysematous pyelonephritis or a renal abscess (in diabetes)",
        ),
        "Blood and urine cultures and IV antibiotics now; urgent urology for drainage "
        "(nephrostomy or stent) the same day; no trial of passage while it is infected.",
        (
            (OBSTRUCTED_URINE, INFECTED),
            (
                r"\bpyelonephritis\b|\bpyelo\b|kidney infection|\burosepsis\b",
                DIABETES,
                r"still (?:spiking|febrile|pyrexial)|not (?:improving|settling|responding)"
                r"|no better"
                r"|worse after|\b(?:48|72) ?h(?:ours|rs)?\b",
            ),
        ),
    ),
    RedFlagRule(
        "neck_haematoma_after_surgery",
        "Neck swelling, tightness or noisy breathing after thyroid or other neck surgery",
        ("expanding neck haematoma compressing the airway",),
        "Call for senior surgical and anaesthetic help now; open the skin and muscle sutures at "
        "the bedside (SCOOP) to release the haematoma if the airway is threatened; oxygen, sit "
        "up; back to theatre.",
        ((NECK_OPERATION, NECK_SWELLING_OR_AIRWAY, Absent(LONG_AGO)),),
    ),
    RedFlagRule(
        "diabetic_foot_infection",
        "A foot ulcer in a person with diabetes with spreading redness, warmth, fever or bone "
        "reached by a probe",
        ("diabetic foot infection with osteomyelitis", "necrotising soft-tissue infection"),
        "Same-day diabetic foot team; X-ray (MRI if unclear); deep tissue or bone samples for "
        "culture; antibiotics per local policy (IV if severe); check perfusion.",
        ((DIABETES, FOOT_ULCER, DEEP_FOOT_INFECTION),),
        PatientAdvice(
            "A foot ulcer with diabetes that is red, hot, smelly or with a temperature",
            "Get medical help today (foot clinic, GP or A&E): an infected foot ulcer with "
            "diabetes needs treatment the same day.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
)

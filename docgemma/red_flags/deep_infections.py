"""Rows of the red-flag table: infections seeded deep in the body (the spine, the heart valves,
a joint and the orbit). The spine comes first: its row names endocarditis too, so a person who
injects drugs with back pain and a fever sees both within the opening's rows."""

from __future__ import annotations

from docgemma.red_flags.cues import BACK_PAIN, CHILD, FEVER, INJECTS_DRUGS, LIMP, any_of
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule
from docgemma.severity import Severity

HEART_DEVICE = any_of(
    r"(?:prosthetic|metal(?:lic)?|mechanical|artificial|tissue|replaced|replacement|new|pig)"
    r" (?:heart |aortic |mitral )?valve|valve (?:replacement|repair|surgery)",
    r"\b(?:tavi|tavr|avr|mvr)\b|\bpacemaker\b|\bdefibrillator\b|\bicd\b",
)
MURMUR = r"new (?:\w+ ){0,2}murmur|murmur (?:that is |which is |is )?new|changing murmur"
EMBOLIC_SIGNS = r"splinter ha?emorrhages?|janeway|osler'?s? nodes?|roth'?s? spots?"

JOINT = r"(?:joint|knee|ankle|hip|elbow|wrist|shoulder|toe|finger)s?\b"
LARGE_JOINT = r"(?:joint|knee|ankle|hip|elbow|wrist|shoulder)s?\b"
"""Not the big toe: a hot swollen first toe joint on its own is usually gout."""
HOT_SWOLLEN_JOINT = any_of(
    r"\b(?:hot|warm|red|inflamed)(?:,? (?:and )?(?:swollen|painful|tender|hot|red|warm))+ "
    r"(?:\w+ )?" + LARGE_JOINT,
    LARGE_JOINT + r" (?:that is |which is |is |has (?:become|gone|got) |looks? |feels? )?"
    r"(?:swollen|hot|red|warm)(?:,? (?:and )?(?:swollen|hot|red|warm))+",
    r"\bswollen(?:,? (?:and )?(?:hot|red|warm))+ (?:\w+ )?" + LARGE_JOINT,
)
ONE_SORE_JOINT = (
    r"(?:swollen|hot|painful) (?:\w+ )?(?:joint|knee|ankle|hip|elbow|wrist|shoulder)\b(?!s)"
    r"|\b(?:joint|knee|ankle|hip|elbow|wrist|shoulder) (?:is )?swollen"
)
"""One joint: aching joints all over with a fever are usually a viral illness."""
EYELID_SWELLING = any_of(
    r"(?:swollen|swelling (?:of|around|on)|puffy|red and swollen) (?:the |my |his |her |their )?"
    r"(?:left |right )?(?:eye(?:lid)?s?|eye ?lids?)\b",
    r"(?:eye(?:lid)?|eye lid)s? (?:is |are |has |have |looks? )?(?:gone |become )?(?:very |really "
    r"|quite )?(?:swollen|puffy|swelling|red and swollen)",
    r"swollen (?:shut|closed)|peri-?orbital (?:swelling|oedema|edema|erythema|redness)",
    r"(?:swollen|puffy),? (?:and )?(?:red|hot|tender|painful) (?:(?:the|my|his|her|their) )?"
    r"(?:(?:left|right|l|r) )?eye ?lids?\b",
)
ORBITAL_SIGNS = any_of(
    r"pain(?:ful)? (?:on|with|when) (?:moving|eye movement)|painful eye movements?",
    r"(?:hurts|pain) (?:to|when (?:i|he|she|they)) move (?:the|my|his|her|their|it)",
    r"\b(?:eye|eyeball)s? (?:\w+ ){0,2}(?:pushed|bulging|sticking|poking) (?:\w+ ){0,2}"
    r"(?:forward|out)",
    r"pain(?:ful)? (?:on |when |with )?moving (?:the|my|his|her|their) eyes?",
    r"\bproptos\w+|\bbulging\b|\bophthalmopleg\w*|restricted eye movements?",
    r"double vision|\bdiplopia\b|\brapd\b|(?:reduced|blurred|blurry|loss of|decreased) "
    r"(?:vision|visual acuity|colour vision|sight)",
)


ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "spinal_epidural_abscess",
        "Back or neck pain with fever, or in a person who injects drugs",
        (
            "spinal epidural abscess",
            "vertebral osteomyelitis or discitis",
            "infective endocarditis",
        ),
        "Full neurological examination (limb weakness, sensory level, bladder); blood "
        "cultures, FBC, CRP, ESR; urgent MRI of the whole spine with contrast — an emergency "
        "if there is any neurological deficit; spinal surgical review; antibiotics after "
        "cultures, at once if septic or there is a deficit.",
        (
            (any_of(BACK_PAIN, r"neck (?:pain|ache)|pain in (?:my|his|her) neck"), FEVER),
            (any_of(BACK_PAIN, r"neck (?:pain|ache)"), INJECTS_DRUGS),
            (r"\b(?:tender|tenderness)\b.{0,30}(?:spine|spinous|vertebra\w*)", FEVER),
            (
                BACK_PAIN,
                r"(?:epidural|spinal|facet|steroid|nerve root) (?:\w+ )?injection|\bspinal "
                r"(?:surgery|procedure)",
                r"\bsweats?\b|\bfluey\b|\bflu-like\b|\brigors?\b|\bfever\w*"
                r"|legs (?:feel )?(?:\w+ )?(?:weak|wobbly)",
            ),
        ),
        PatientAdvice(
            "Back pain with a high temperature, or back pain when injecting drugs",
            "Contact your GP surgery today or call NHS 111 — go to A&E now if you inject drugs, "
            "your legs feel weak or numb, or you have problems peeing: back pain with a "
            "temperature can be an infection near the spine.",
            Severity.URGENT_PRIMARY_CARE,
        ),
    ),
    RedFlagRule(
        "infective_endocarditis",
        "Fever with a new murmur, a prosthetic valve or cardiac device, or injecting drug use",
        (
            "infective endocarditis",
            "septic emboli (stroke, spinal or other abscess, septic pulmonary emboli)",
            "cardiac device infection",
        ),
        "Three sets of blood cultures from separate venepunctures before any antibiotic; "
        "ECG (a lengthening PR interval suggests an aortic root abscess); echocardiogram, "
        "transoesophageal if the transthoracic one is normal but suspicion remains; "
        "empirical IV antibiotics after cultures if septic or very unwell; cardiology and "
        "microbiology (endocarditis team).",
        (
            (FEVER, any_of(MURMUR, HEART_DEVICE, INJECTS_DRUGS, EMBOLIC_SIGNS)),
            (MURMUR, EMBOLIC_SIGNS),
        ),
        PatientAdvice(
            "A fever with an artificial heart valve or pacemaker, or when injecting drugs",
            "Go to A&E now: a fever when you have an artificial heart valve or pacemaker, or "
            "inject drugs, can be an infection of the heart that needs blood tests before any "
            "antibiotic.",
        ),
    ),
    RedFlagRule(
        "septic_arthritis",
        "A hot, swollen joint, or a febrile child who is limping or will not bear weight",
        (
            "septic arthritis (including prosthetic joint infection)",
            "osteomyelitis",
            "gonococcal arthritis",
            "crystal arthritis (which can coexist with infection)",
        ),
        "Aspirate the joint before antibiotics (Gram stain, culture, crystals) — by "
        "orthopaedics if it is a prosthetic joint; blood cultures, FBC, CRP; IV antibiotics "
        "after aspiration (at once if septic); urgent orthopaedic review for washout; in a "
        "child, same-day paediatric and orthopaedic assessment.",
        (
            (HOT_SWOLLEN_JOINT,),
            (FEVER, ONE_SORE_JOINT),
            (CHILD, LIMP, FEVER),
        ),
        PatientAdvice(
            "A hot, swollen, painful joint, or a child with a temperature who is limping",
            "Go to A&E now: a hot, swollen joint can be an infection that damages the joint "
            "within days.",
        ),
    ),
    RedFlagRule(
        "orbital_cellulitis",
        "A swollen eyelid with pain on eye movement, proptosis, reduced vision or fever",
        (
            "orbital cellulitis",
            "subperiosteal or orbital abscess",
            "cavernous sinus thrombosis",
        ),
        "Visual acuity, colour vision, pupils (relative afferent pupillary defect) and eye "
        "movements, recorded and repeated; IV antibiotics per local policy; urgent CT of the "
        "orbits and sinuses with contrast if orbital signs; same-day ophthalmology and ENT "
        "review.",
        ((EYELID_SWELLING, any_of(ORBITAL_SIGNS, FEVER)),),
        PatientAdvice(
            "A swollen eyelid with a temperature, pain moving the eye or blurred sight",
            "Go to A&E now: a swollen eyelid with a temperature or pain moving the eye can be "
            "an infection behind the eye.",
        ),
    ),
)

"""Rows of the red-flag table: the eye and the mind (sudden loss of sight, acute
angle-closure glaucoma and suicidal intent)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    SUDDEN,
    VISION_LOSS,
    VOMITING,
    any_of,
)
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule

SIGHT_BLACKED_OUT = (
    r"\b(?:vision|sight) (?:in|of) (?:\w+ ){0,3}eye (?:went|goes|going|turned|became|blacked)"
    r" (?:out|dark|black|grey|gray|dim)"
)
"""Sight in an eye going dark, if only for minutes: a retinal artery or the carotid warning."""
NO_FUTURE = any_of(
    r"\b(?:you|they|everyone|everybody|people|we) (?:won't|will not) (?:have to )?(?:put up with"
    r"|deal with|worry about|see) (?:me|him|her|them)\b(?: \w+)?(?: (?:much|any|for (?:much|very)) "
    r"longer| again)",
    r"\b(?:i|he|she|they) (?:won't|will not|shan't) be (?:a |an )?(?:bother|burden|nuisance"
    r"|trouble|around|here)\b(?: to \w+(?: \w+)?)?(?: for)?(?: much| very)? (?:longer|long)\b",
    r"\b(?:(?:i'm|i am|he's|she's|they're|being) |feel(?:s|ing)? (?:like )?)(?:just |such )?"
    r"a burden (?:to|on) (?:everyone|everybody|others|them|you|(?:my|his|her|their|the) "
    r"(?:family|kids|children))",
    r"(?:everyone|everybody|they|family|kids|you)(?:'d| would) be better off without (?:me|him"
    r"|her|them)|better for everyone (?:if|when) (?:i|he|she|they)(?:'m|'re| am| was| were)? gone",
    r"no (?:point|reason) (?:in )?(?:living|going on|carrying on|being alive)|can't go on "
    r"(?:like this|any ?more)",
    r"wish (?:i|he|she|they) (?:could )?(?:go to sleep and )?(?:not|never) wake up",
)
"""Passive wishes to be dead or gone: suicidal ideation in other words."""
FINAL_ACTS = any_of(
    r"(?:put|putting|getting|got|sorting|sorted) (?:my|his|her|their) (?:affairs|things) in order",
    r"\b(?:giv(?:en|ing|es)|gave) away (?:his|her|my|their) (?:\w+ ){0,2}\w+",
    r"(?:giv(?:en|ing|es)|gave) (?:away )?(?:\w+ ){0,3}(?:possessions|belongings|things|pets?"
    r"|dog|cat) (?:away|to)\b|\bgiv(?:en|ing|es)? away (?:\w+ ){0,2}(?:possessions|belongings"
    r"|things|pets?|dog|cat)",
    r"(?:wr(?:ote|itten|iting)|left) (?:a |an )?(?:suicide |goodbye |farewell )?note\b",
    r"(?:made|making|wrote|written|updated|changed) (?:a |his |her |their |my )?(?:new )?will\b",
)
"""Acts of someone preparing to die."""
DISTRESS = any_of(
    r"\blow mood\b|\bdepress\w+|\bhopeless\w*|\bworthless\w*",
    r"\bwidow\w*|\bbereave\w+|\bfuneral\b|\bgriev\w+|\bgrief\b|since (?:his|her|their) "
    r"(?:\w+ ){0,2}died",
    r"drinking (?:more|heavily)|\bstockpil\w+|(?:saving|saved|hoarding) (?:up )?"
    r"(?:\w+ ){0,2}(?:tablets|pills|medication|morphine)",
)

CONTACT_LENS = (
    r"contact lens\w*|\bcontacts\b|\b(?:monthlies|dailies)\b|\bcl wearer\b|\b(?:slept|sleeps|"
    r"swims?|swam) (?:\w+ )?in (?:her |his |their )?lenses"
)
KERATITIS_SIGNS = any_of(
    r"\b(?:white|grey|gray|cream) (?:spot|patch|dot|area|infiltrate|opacity)\b|\bcorneal "
    r"(?:ulcer|infiltrate|opacity|abscess)",
    r"\bphotophobi\w+|can't stand the light|light hurts|(?:vision|sight) (?:is )?(?:worse|reduced"
    r"|blurred)",
)
PAINFUL_RED_EYE = (
    r"\b(?:painful|sore),? (?:\w+ )?red eye|\beye (?:is |very |really |so )*(?:painful|sore|red)"
    r"|\beye pain\b|\bred,? (?:and )?painful eye"
)

ROWS: tuple[RedFlagRule, ...] = (
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
        (
            (SUDDEN, VISION_LOSS),
            (r"curtain (?:over|across|coming down)|\bamaurosis\b",),
            (SIGHT_BLACKED_OUT,),
            (VISION_LOSS, r"\brapd\b|relative afferent|counting fingers|hand movements only"),
            (r"woke (?:up )?(?:\w+ ){0,3}with (?:\w+ ){0,2}(?:loss of|lost|no) (?:vision|sight)",),
            (r"\bblind (?:being )?(?:pulled|drawn|coming) down",),
            (
                r"\b(?:new|sudden|shower of|increas\w+|more) (?:\w+ )?floaters?\b|\bflash(?:es"
                r"|ing lights)\b|\bphotopsi\w+",
                r"\b(?:shadow|veil|cobweb|curtain)\b|\bshower of\b|\bfield (?:loss|defect)",
            ),
        ),
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
                r"(?:painful|red) (?:red )?eye|eye pain|\beye (?:is |was |looks )?(?:red|painful)",
                any_of(
                    r"halos?|haloes|fixed (?:mid-?)?dilated|mid-?dilated|rainbows? (?:a?round|"
                    r"round) (?:the )?lights|coloured rings",
                    VISION_LOSS,
                    r"\beye (?:\w+ ){0,3}(?:blurry|blurred|cloudy|hazy)",
                    VOMITING,
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
        "contact_lens_keratitis",
        "A painful red eye in a contact lens wearer, with a white spot on the cornea, "
        "light sensitivity or worse vision",
        ("microbial keratitis (bacterial, including Pseudomonas, or Acanthamoeba)",),
        "Stop lens wear; same-day ophthalmology for corneal scrapes and culture (bring the "
        "lenses and case); intensive topical antibiotics started by the eye team; no steroid "
        "drops.",
        ((CONTACT_LENS, PAINFUL_RED_EYE, KERATITIS_SIGNS),),
        PatientAdvice(
            "A painful red eye when you wear contact lenses",
            "Take the lenses out and get seen today (eye casualty or A&E): this can be an eye "
            "infection that damages sight quickly.",
        ),
    ),
    RedFlagRule(
        "suicidal_intent",
        "Suicidal thoughts or intent, a wish to be gone, or preparations for death (affairs put "
        "in order, possessions given away) in someone low or bereaved",
        ("immediate suicide risk",),
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
                    r"goodbye (?:notes?|letters?|messages?)|suicide notes?|looking up (?:online )?"
                    r"how (?:many|much)|how many (?:\w+ ){0,4}it would take|make it (?:all )?stop",
                    NO_FUTURE,
                ),
            ),
            (FINAL_ACTS, DISTRESS),
        ),
        PatientAdvice(
            "Thoughts of suicide or of ending one's life",
            "Please call 999 or go to A&E now if you might act on these thoughts. You can also "
            "call Samaritans free on 116 123, any time, day or night.",
        ),
    ),
)

"""Rows of the red-flag table: harm from the surroundings (carbon monoxide, heat and cold)."""

from __future__ import annotations

from docgemma.red_flags.cues import (
    BREATHLESS,
    CONFUSED,
    HEADACHE,
    LOW_TEMP,
    SEIZURE,
    SYNCOPE,
    VOMITING,
    any_of,
)
from docgemma.red_flags.rule import PatientAdvice, RedFlagRule

CO_SOURCE = any_of(
    r"\bboilers?\b|gas (?:fire|heater|cooker|appliance|boiler|leak)|paraffin heater"
    r"|\bgenerator\b|wood ?burner|log burner|\bchimney\b|\bflue\b",
    r"(?:barbecue|bbq|charcoal|brazier)s? (?:\w+ )?(?:indoors|inside|in (?:the|a|our|their) "
    r"(?:tent|garage|caravan|room|house|flat))",
    r"(?:carbon monoxide|co) (?:alarm|detector) (?:went off|going off|goes off|sounded|beep\w*)",
    r"car exhaust|engine running in (?:a|the) (?:closed )?garage|smoke inhalation|house fire"
    r"|(?:trapped|rescued) (?:in|from) a fire",
)
CO_SYMPTOMS = any_of(
    HEADACHE,
    CONFUSED,
    SYNCOPE,
    SEIZURE,
    BREATHLESS,
    VOMITING,
    r"\bnause\w+|feel(?:s|ing)? sick|\bdizz\w+|light-?headed|\btired\b|\bsleepy\b",
)
HOUSEHOLD = any_of(
    r"\b(?:everyone|everybody|all of us|both of us|whole family|whole household|all the family"
    r"|we (?:all|both)|all (?:three|four|five|six) of us|(?:and i|we) both)\b",
    r"\b(?:family|household) members\b|members of (?:the|one|his|her|my|our) (?:family"
    r"|household)|several (?:people|members)",
    r"\b(?:wife|husband|partner|kids|children|family|flatmates?|housemates?|parents|mum|dad"
    r"|son|daughter|brother|sister) (?:\w+ ){0,2}(?:also|too|as well)\b",
)
AWAY_BETTER = (
    r"(?:better|improves?|improving|goes away|gone|disappears?|clears?) (?:\w+ ){0,3}(?:when|once"
    r"|after|if) (?:\w+ ){0,3}(?:out(?:side|doors)?|leaves?|leaving|left|away|at work)"
    r"|worse (?:at|in the) (?:home|house|flat)"
)
HEAT = any_of(
    r"heat ?wave|in the (?:heat|sun)|(?:hot|heat of the) (?:weather|day|sun|car|room|kitchen)",
    r"(?:left|locked|trapped) in (?:a|the) (?:hot )?car|sun ?stroke|heat ?stroke|heat exhaustion",
    r"\bmarathon\b|\btriathlon\b|fun run\b|military (?:training|march)|exertional heat"
    r"|\bsauna\b",
    r"(?:working|worked|playing|played) (?:\w+ )?(?:outside|outdoors) (?:in|all day)",
)
CONFUSED_ONLY = r"\bconfus\w+|\bdisorientat\w+|\bdelirious\b|not making sense|slurr\w+"
"""Confusion itself: drowsiness alone is common after a day in the heat."""
HOT_DRY = r"(?:stopped|not|isn't|wasn't) sweating|hot,? (?:and )?dry skin|skin (?:is )?hot and dry"
VERY_HIGH_TEMP = (
    r"\b(?:core |rectal )?temp(?:erature)?\s*(?:of|is|was|:|=)?\s*4[0-4](?:\.\d)?(?!\.?\d)"
    r"|\b4[0-4](?:\.\d)? ?(?:c|°c|degrees)\b"
)
COLD_BODY = (
    r"cold to (?:the )?touch|(?:he's|she's|they're|he is|she is|they are|was|were|(?:skin|body)"
    r" (?:is|was|feels?|felt)) (?:\w+ )?(?:freezing|ice|icy|stone|very|really) cold"
)
"""Cold to another's touch, not a patient feeling cold (chills with a fever)."""
COLD_DANGER = any_of(
    CONFUSED,
    r"found (?:\w+ ){0,3}(?:on the floor|outside|in the (?:garden|snow|water|street|river|sea"
    r"|canal))|(?:on|lying on) the floor (?:all|over) ?night|long lie",
    r"pulled (?:out of|from) (?:the )?(?:water|river|sea|canal|lake)|(?:fell|been) in (?:the )?"
    r"(?:icy |cold )?water|sleeping rough",
    r"stopped shivering|slurr\w+|unresponsive|slow breathing|\bclumsy\b",
)

ROWS: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        "carbon_monoxide",
        "Headache, nausea, dizziness or confusion with a fuel-burning appliance, fire or "
        "exhaust, or in several members of one household",
        ("carbon monoxide poisoning", "cyanide poisoning (smoke inhalation)"),
        "Remove from the source; 100% oxygen by a non-rebreathing mask at once, without "
        "waiting for results; carboxyhaemoglobin on a blood gas (pulse oximetry reads falsely "
        "normal); ECG and troponin; discuss hyperbaric oxygen with a poisons service if "
        "unconscious, pregnant or with neurological signs; check the others exposed and have "
        "the appliance made safe.",
        (
            (CO_SOURCE, CO_SYMPTOMS),
            (HOUSEHOLD, HEADACHE, any_of(CONFUSED, SYNCOPE, r"\bnause\w+|\bdizz\w+|feel\w* sick")),
            (AWAY_BETTER, HEADACHE),
            (
                r"\bcohb\s*(?:of|is|was|:|=)?\s*(?:[5-9]|[1-9]\d)(?:\.\d)?\s*%|carboxyh(?:a)?emoglobin"
                r" (?:of|is|was|:|=)?\s*(?:[5-9]|[1-9]\d)",
            ),
        ),
        PatientAdvice(
            "Headaches, sickness or dizziness near a boiler, fire or heater, or in several "
            "people at home",
            "Get everyone out into fresh air, turn off the appliance if it is safe and call "
            "the gas emergency number (0800 111 999); call 999 or go to A&E now: this can be "
            "carbon monoxide poisoning.",
        ),
    ),
    RedFlagRule(
        "heat_stroke",
        "Confusion, collapse, seizure or no sweating after heat exposure or exertion, or a "
        "core temperature of 40 °C or more with confusion, a seizure or hot, dry skin",
        (
            "heat stroke (multi-organ failure)",
            "sepsis or meningitis",
            "drug causes: neuroleptic malignant syndrome, serotonin syndrome, stimulants",
            "thyroid storm",
        ),
        "Core temperature; start rapid cooling at once — cold-water immersion for exertional "
        "heat stroke, otherwise evaporative cooling with ice packs to the neck, armpits and "
        "groin — aiming below 39 °C; ABCDE, glucose, U&E, CK, LFT, clotting; IV fluids; "
        "antipyretics do not help.",
        (
            (HEAT, any_of(CONFUSED_ONLY, SYNCOPE, SEIZURE, HOT_DRY, VERY_HIGH_TEMP)),
            (VERY_HIGH_TEMP, any_of(HOT_DRY, CONFUSED_ONLY, SEIZURE)),
        ),
        PatientAdvice(
            "Confused, collapsed, fitting or no longer sweating after being in the heat",
            "Call 999 now; move them somewhere cool, remove extra clothing and cool them with "
            "cold water while you wait: this can be heatstroke.",
        ),
    ),
    RedFlagRule(
        "hypothermia",
        "A core temperature below 35 °C, or a cold patient who is confused, drowsy or found "
        "after a long lie or immersion",
        (
            "moderate or severe hypothermia (arrhythmia, cardiac arrest)",
            "an underlying cause: sepsis, hypoglycaemia, hypothyroidism, stroke, intoxication",
            "rhabdomyolysis and pressure injury after a long lie",
        ),
        "Core (low-reading) temperature; handle gently and keep horizontal (risk of "
        "ventricular fibrillation); remove wet clothing; active external rewarming (forced "
        "warm air) and warmed IV fluids; cardiac monitoring; glucose, U&E, CK, thyroid "
        "function; in cardiac arrest continue CPR and consider extracorporeal rewarming.",
        ((LOW_TEMP,), (COLD_BODY, COLD_DANGER)),
        PatientAdvice(
            "Someone very cold who is drowsy, confused or slurring, or was found outside or on "
            "the floor",
            "Call 999 now; move them somewhere warm, remove wet clothes, cover them with "
            "blankets and handle them gently.",
        ),
    ),
)

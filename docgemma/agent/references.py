"""Requests that point at a patient, a drug or an image nobody gave.

"Check her allergies" with no patient named or selected, "is this drug safe for him"
with no drug in the conversation, "what does the X-ray show" with nothing attached:
a small model fills the gap with a guess (a patient called ``patient_name``). These
are recognised here, in code, before any model call, and the turn asks the clinician
instead. Pure functions of the message and what the conversation already holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from docgemma.agent.entities import JOINED_ID_RE, drug_dictionary, patient_ids
from docgemma.agent.person_names import introduced_names
from docgemma.agent.rules import ATTACH_IMAGE, WHICH_DRUG, WHICH_PATIENT
from docgemma.agent.small_talk import VOCABULARY
from docgemma.agent.small_talk import words as small_talk_words

_I = re.IGNORECASE
PATIENT_REFERENCE = re.compile(
    r"\b(?:he|she|him|her|his|hers)\b"
    r"|\b(?:the|this|my|our|that|same)\s+(?:patient|pt)\b|\bpatient's\b"
    r"|\b(?:pull up|open|show|review|check)(?:\s+me)?\s+(?:the|this)\s+"
    r"(?:chart|record|labs?|allergies|medication list|vitals)\b",
    _I,
)
"""A patient referred to without being named ("her", "the patient", "pull up the chart")."""
PATIENT_SCOPED = re.compile(
    r"\b(?:allerg\w*|labs?|lab values?|results?|chart|records?|medications?|meds|vitals?"
    r"|history|problem list|conditions?|diagnos\w+|potassium|sodium|creatinine|egfr|hba1c|a1c"
    r"|inr|magnesium|qtc|heart rate"
    r"|glucose|blood pressure|weight|kidney function|renal function|notes?|prescribe\w*"
    r"|prescription|dose|dosing|safe for|document|age|old)\b",
    _I,
)
"""What only a particular patient's record can answer, or a write to it."""
PATIENT_LOOKUP = re.compile(
    r"\b(?:look up|find|search for|pull up|open)\s+(?:the|this|that|my|our)\s+patient\b", _I
)
"""A search for a patient who is not named."""
NAMED_PATIENT = re.compile(
    r"\b(?i:patient|pt\.?|mr\.?|mrs\.?|ms\.?|miss)\s+[A-Z][a-z]+"
    r"|\b(?i:for|of|named|called|about|find|look up|search for|pull up|open)\s+"
    r"[A-Z][a-z]+\s+[A-Z][a-z]+"
)
"""A patient named in the text (capitalised name after "patient", "Mrs", "find"...)."""
DESCRIBED_PATIENT = re.compile(
    r"\b\d{1,3}\s*-?\s*(?:years?|yrs?|months?|weeks?|days?)\s*-?\s*old\b"
    r"|\b\d{1,3}\s*(?:yo|y/o|y\.o\.)(?!\w)"
    r"|\b(?-i:\d{1,3}\s?[MF])\b"
    r"|\b(?:a|an)\s+(?:[\w-]+\s+){0,2}(?:man|woman|male|female|boy|girl|child|infant|neonate"
    r"|baby|toddler|teenager|adolescent|gentleman|lady)\b",
    _I,
)
"""A patient the message itself describes ("a 45-year-old man", "67F", "a pregnant woman"):
its pronouns are that person, not someone in the record."""
_RECORD_PART = (
    r"(?:chart|records?|labs?|lab values?|latest|allerg\w*|med(?:ication)?\s+list|vitals"
    r"|notes?|problem\s+list|results?)"
)
RECORD_ACCESS = re.compile(
    r"\b(?:pull(?:\s+up)?|open|show|check|look\s+up|review|get|fetch|see|what\s+(?:are|is|were))"
    r"\b[^.?!;]{0,30}?\b(?:the|her|his|their)\s+" + _RECORD_PART + r"\b"
    r"|\b(?:her|his|their|the\s+patient'?s|this\s+patient'?s)\s+" + _RECORD_PART + r"\b"
    r"|\bprescri\w+|\bdocument\w*|\b(?:save|write|add)\s+(?:a|an|the|this)\s+(?:note|allergy)\b",
    _I,
)
"""Asking to read or write a record ("pull up her labs", "his med list", "document …"):
what a patient described in the message cannot answer. Results the message itself reports
("the lab says blasts on the film") are part of the description."""
DRUG_REFERENCE = re.compile(
    r"\b(?:this|that|the|these|those|same)\s+"
    r"(?:drugs?|medications?|medicines?|meds?|pills?|tablets?|antibiotics?)\b"
    r"(?!\s+(?:list|history|record|reconciliation))",
    _I,
)
ON_THE_PILL = re.compile(
    r"\b(?:on|taking|takes|take|started|stopped|stopping|missed|forgot|forgotten|off|uses"
    r"|using|came off|coming off) the pill\b",
    _I,
)
"""The combined oral contraceptive, as clinicians and patients name it ("she is on the
pill"): a medicine named, not a reference to one left unnamed."""
IMAGING = (
    r"(?:images?|pictures?|photos?|photographs?|screenshots?|x-?rays?|cxr|axr|radiographs?"
    r"|films?|scans?|ct|mri|ultrasound|sonograms?|echo|ecg|ekg|ecgs|ekgs|rhythm strips?"
    r"|tracings?|slides?|smears?|dermoscopy|fundus photos?)"
)
"""The things an image shows: a closed vocabulary of pictures, studies and tracings."""
IMAGE_REFERENCE = re.compile(
    r"\b(?:this|the|that|these|attached|my|her|his)\s+(?:[\w-]+\s+)?" + IMAGING + r"\b", _I
)
"""An image pointed at ("this X-ray", "the attached ECG")."""
IMAGING_WORD = re.compile(r"\b" + IMAGING + r"\b", _I)
HANDED_OVER = re.compile(
    r"\bhere (?:it is|they are|you go)\b|\bhere(?:'s|’s| is| are)\s+(?:[\w-]+\s+){0,2}"
    + IMAGING
    + r"\b|\battach(?:ed|ing)\b"
    r"|\bupload(?:ed|ing)?\b|\b(?:sending|sent you|i'?ve sent|pasted)\b"
    r"|\b(?:see|look at|check|read|interpret|review)\s+(?:this|these|it|them|attached)\b",
    _I,
)
"""Words that hand an image over: with an imaging word anywhere in the message, the
message is about an image that should be attached ("Got a portable CXR. Here it is.")."""
NOT_ABOUT_AN_IMAGE_AT_HAND = re.compile(
    r"\b(?:order\w*|request\w*|indicat\w*|when|should|need\w*|recommend\w*|guidelines?"
    r"|notes?|document\w*|was|were|scheduled|booked)\b",
    _I,
)
"""Asking whether to get an imaging study is not asking about one at hand."""
READING_GIVEN = re.compile(
    IMAGING + r"\s+(?:shows|showed|revealed|reveals|demonstrated|demonstrates|confirmed"
    r"|was (?:normal|clear|unremarkable))\b",
    _I,
)
"""The clinician states what the study showed: its reading is in the text."""
PLANNED = re.compile(r"\b(?:order\w*|request\w*|book\w*|schedul\w*|should (?:i|we) get)\b", _I)
INTERACTION = re.compile(r"\binteract\w*|\bcombin\w*|\btogether\b", _I)
DRUG_TASK = re.compile(
    r"^\s*(?:please\s+)?(?:check|verify|look up|find|get|show)\b.*"
    r"\b(?:warnings?|safety|boxed|label|interactions?|side effects?|contraindications?)\b",
    _I,
)
"""A request to check a drug's label or interactions, which cannot run without a drug."""
OBJECT = re.compile(r"\b(?:for|of|on|about|with|between|in)\s+\w", _I)
"""Something named after the request ("... for Xyzzaprine"), even if not in the dictionary."""


SEVERAL_PATIENTS = re.compile(
    r"\b(?:a\s+few|few|several|some|multiple|many|a\s+couple(?:\s+of)?|couple\s+of"
    r"|a\s+number\s+of|a\s+list\s+of|\d+|two|three|four|five|six|ten)\s+(?:more\s+|other\s+)?"
    r"(?:patients|pts|charts|records|people)\b",
    _I,
)
RECORD_WORK = re.compile(
    r"\b(?:charts?|records?|reviews?|review\w*|rounds|notes|handover|list|go\s+through)\b", _I
)
"""Work on the record of several patients, none named: "a few charts to get through tonight"."""
BARE_RECORD_REQUEST = re.compile(
    r"^\s*(?:and\s+)?(?:(?:the|his|her|their)\s+)?(?:full\s+)?(?:chart|record|labs?|meds"
    r"|medications?|med\s+list|allergies|vitals|notes?|history|problem\s+list)"
    r"(?:\s+(?:too|also|as\s+well|again|please|pls))*\s*[.?!]*\s*$",
    _I,
)
"""A record asked for with no other word ("Chart", "labs?", "Her labs as well"): the
conversation's patient is meant."""
WHICH_OF_SEVERAL = (
    "Which patient would you like to start with? Please give their name or ID, or select "
    "them in the patient panel; I will take them one at a time."
)


def not_found_again(name: str) -> str:
    """The question for a follow-up about a patient the record does not hold."""
    return (
        f"I could not find a patient named '{name}' in the record, so I have no chart for "
        "them. Could you check the spelling, search by family name alone, give the "
        "patient's ID, or select them in the patient panel?"
    )


RECORD_MEDICATIONS = re.compile(
    r"\b(?:(?:his|her|their|the\s+patient'?s|this\s+patient'?s|current|home|active|existing"
    r"|regular|usual)\s+(?:current\s+|home\s+|active\s+|regular\s+)?"
    r"(?:med(?:ication)?s|med(?:ication)?\s+list|drugs|prescriptions|regimen)"
    r"|med(?:ication)?\s+list)\b",
    _I,
)
"""The patient's own medications, as a question points to them ("their current med list")."""


def points_to_record_medications(query: str) -> bool:
    """The question asks about the medications the patient's record lists."""
    return RECORD_MEDICATIONS.search(query) is not None


MAY_TAKE = re.compile(
    r"\b(?:can|could|may|should)\s+(?:she|he|they|the\s+patient|this\s+patient|my\s+patient|pt)"
    r"\s+(?:take|have|be\s+given|start|use|get)\b"
    r"|\b(?:safe|ok|okay|alright|appropriate|fine)\s+(?:for|in)\s+(?:her|him|them|the\s+patient"
    r"|this\s+patient|my\s+patient)\b",
    _I,
)
"""A question whether the patient may take a drug ("Can she take ibuprofen?", "Is
naproxen safe for him?")."""


def asks_if_patient_may_take(query: str) -> bool:
    """Whether the patient may take a drug: a question that a check against the drugs they
    already take answers, beside what the drug's label says."""
    return MAY_TAKE.search(query) is not None


SHOW_RECORD = re.compile(
    r"\b(?:pull(?:\s+up)?|show|list|display|give\s+me|print|review)\b[^.?!;]{0,40}?"
    r"\b(?:chart|record|med(?:ication)?s?|med(?:ication)?\s+list|drugs|allerg(?:y|ies))\b",
    _I,
)
"""A request to be shown what the record holds ("pull their current med list")."""


def asks_to_see_record(query: str) -> bool:
    """The clinician asks to be shown the record, or a part of it, among other things."""
    return SHOW_RECORD.search(query) is not None


@dataclass(frozen=True)
class Context:
    """What the conversation already provides besides the message itself."""

    earlier_messages: Sequence[str] = ()
    """The clinician's earlier messages and the assistant's answers, oldest first."""
    patient_selected: bool = False
    image_available: bool = False
    """An image is attached to this turn, or an earlier one's findings are kept."""
    unfound_patient: str | None = None
    """The name the latest patient search found no one for."""


def _names_patient(text: str) -> bool:
    return bool(patient_ids(text) or NAMED_PATIENT.search(text))


def describes_its_patient(query: str) -> bool:
    """The message describes the patient it asks about (a vignette: "a 45-year-old man …
    the worst headache of his life") and asks nothing of a record: its "he" and "her"
    are that patient, so no chart patient is missing and the sources answer it."""
    return bool(DESCRIBED_PATIENT.search(query)) and not RECORD_ACCESS.search(query)


DRUG_QUESTION = re.compile(
    r"\b(?:dos(?:e|es|ing|age)|side[- ]effects?|adverse\s+(?:effects?|reactions?)|interact\w*"
    r"|label|boxed|warnings?|contraindicat\w*|mg/kg|titrat\w*|maximum|renal\s+adjust\w*"
    r"|safe\s+(?:in|during)\s+(?:pregnancy|breast-?feeding|lactation)"
    r"|safe\s+to\s+(?:take|give|use|prescribe|start|combine))\b",
    _I,
)
"""What a drug's label answers: its dose, effects, interactions, warnings and use in
pregnancy."""
ACTS_ON_A_DRUG = re.compile(
    r"\b(?:giv(?:e|ing)|start(?:ing)?|prescrib(?:e|ing)|add(?:ing)?|switch(?:ing)?"
    r"|stop(?:ping)?|continu(?:e|ing)|restart(?:ing)?|withhold(?:ing)?|hold(?:ing)?)\b",
    _I,
)
"""A question about doing something with a drug ("any concerns giving her ibuprofen?")."""


def asks_about_a_case(query: str) -> bool:
    """The message describes its patient and asks about the case (what it is, what to do
    first, whether a plan is right), not about a drug it mentions: the condition pages
    answer it, not the label of a drug in the story ("… better after paracetamol.
    Migraine, OK to discharge?")."""
    return describes_its_patient(query) and not DRUG_QUESTION.search(query)


def refers_back(query: str) -> bool:
    """The message is about the conversation's patient without naming one."""
    scoped = PATIENT_SCOPED.search(query) and PATIENT_REFERENCE.search(query)
    referred = bool(scoped or BARE_RECORD_REQUEST.match(query))
    return referred and not _names_patient(query) and not describes_its_patient(query)


def about_unfound_patient(query: str, context: Context) -> bool:
    """A follow-up ("her labs as well") about the patient the last search did not find."""
    return bool(context.unfound_patient) and not context.patient_selected and refers_back(query)


def several_patients(query: str, context: Context) -> bool:
    """Record work on several patients, none of them named or selected."""
    if context.patient_selected or _names_patient(query):
        return False
    return bool(SEVERAL_PATIENTS.search(query) and RECORD_WORK.search(query))


def missing_patient(query: str, context: Context) -> bool:
    """A request about a particular patient's record, and no patient given anywhere."""
    if context.patient_selected or describes_its_patient(query):
        return False
    scoped = PATIENT_SCOPED.search(query) and PATIENT_REFERENCE.search(query)
    if not (scoped or PATIENT_LOOKUP.search(query) or BARE_RECORD_REQUEST.match(query)):
        return False
    return not any(_names_patient(t) for t in (query, *context.earlier_messages))


def about_record(query: str) -> bool:
    """A question about what a named or referred-to patient's record says."""
    if describes_its_patient(query):
        return False
    return bool(PATIENT_SCOPED.search(query) and refers_to_patient(query))


def refers_to_patient(query: str) -> bool:
    """The message points at a particular patient ("her", "the patient", a name or an id)."""
    return bool(PATIENT_REFERENCE.search(query) or _names_patient(query))


_CALLING_UP = frozenset(
    {"patient", "pt", "next", "chart", "record", "records", "pull", "up", "open", "show",
     "review", "see", "seeing", "id", "now", "for", "of", "on", "to"}
)  # fmt: skip
"""Words that call up a patient and ask nothing about them ("Next patient: …, gkim-008")."""
_NAME_WORD = re.compile(r"(?<=[\w,:;] )[A-Z][a-z]+\b")


_FINDING = frozenset(
    {"find", "look", "up", "search", "locate", "get", "pull", "in", "on", "the", "system",
     "ehr", "emr", "record", "records", "database", "our", "patient", "pt", "named", "called"}
)  # fmt: skip
"""Words that ask to find a patient and ask nothing about them ("Look up … in the system")."""


def patient_to_find(query: str) -> str | None:
    """The name of the patient a message only asks to find ("Look up James Wilson."), or
    None: it gives no id, names no drug and asks nothing else. A small model answered
    such a message from the condition pages."""
    names = introduced_names(query)
    if len(names) != 1 or patient_ids(query) or drug_dictionary().find(query):
        return None
    rest = small_talk_words(query.replace(names[0], " "))
    return names[0] if all(w in VOCABULARY or w in _FINDING for w in rest) else None


def only_names_a_patient(query: str) -> bool:
    """The message gives a patient's id and asks nothing else: it calls up that patient, so
    their record is what to show (a small model sent "Patient gkim-008 please." to the
    condition pages)."""
    ids = patient_ids(query)
    if not ids or drug_dictionary().find(query):
        return False
    rest = JOINED_ID_RE.sub(" ", query)  # "pt abc123": the id as typed
    for found in [*ids, *introduced_names(query)]:
        rest = rest.replace(found, " ")
    rest = _NAME_WORD.sub(" ", rest)  # beside an id, a capitalised word within a sentence is
    # the patient's name; a sentence's first word ("Summarise the chart …") is not
    return all(w in VOCABULARY or w in _CALLING_UP for w in small_talk_words(rest))


ASKS_WHAT_TO_DO = re.compile(
    r"\b(?:treat\w*|manag\w*|should|next|do (?:i|we)|adjust\w*|switch\w*|stop\w*|start\w*"
    r"|change|reduce|increase|hold|continue|cause\w*|why|explain|interpret\w*|mean\w*|safe"
    r"|risk\w*|problem\w*|concern\w*|worr\w*|recommend\w*|interact\w*|differential)\b",
    _I,
)
"""A question that asks what to make of the record or what to do, not only what it holds."""


_DRUG_KIND = (
    r"(?:\w+(?:ics?|ants?|ives?|ins?|oids?|ers?)|drugs?|meds?|medications?|medicines?|tablets?"
    r"|pills?|inhalers?|injections?|insulin|pain relief|treatment)"
)
"""A kind of drug as clinicians name one: antiarrhythmic, anticoagulant, antihypertensive,
statins, steroids, opioids, beta blockers, painkillers, tablets."""
ON_MEDICATION = re.compile(
    rf"\b(?:what|which)\s+(?:\w+\s+){{0,2}}?{_DRUG_KIND}\s+(?:is|are|was|were)\s+(?:s?he|they)\s+"
    r"(?:currently\s+|still\s+|already\s+|now\s+)?(?:on|taking)\s*[?.!]*\s*$",
    _I,
)
"""Which drug of a kind the patient at hand takes: "What antiarrhythmic is he on?"."""


def asks_what_record_holds(query: str) -> bool:
    """A question only about what the patient's record holds ("What is she allergic to?",
    "Her latest eGFR?", "What antiarrhythmic is he on?"): with the record loaded, the
    record is its source, whatever else the conversation was about. A question that asks
    what to make of it or what to do ("Is that potassium a problem?") may need other
    sources too."""
    asked = about_record(query) or (
        bool(ON_MEDICATION.search(query)) and not describes_its_patient(query)
    )
    return asked and not ASKS_WHAT_TO_DO.search(query)


ONLY_SEE_RECORD = re.compile(
    r"^\s*(?:please\s+)?(?:(?:find|search for|look up)\s+(?:patient\s+)?[\w.-]+(?:\s+[\w.-]+)?"
    r",?\s+and\s+)?(?:(?:can|could)\s+you\s+)?(?:show|display|pull up|open|view)(?:\s+me)?\s+"
    r"(?:the|his|her|their|this|the patient's|this patient's)\s+(?:chart|record)"
    r"(?:\s+(?:of|for)\s+(?:patient\s+)?[\w.-]+(?:\s+[\w.-]+)?)?\s*[.!?]?\s*$",
    _I,
)
"""A request to see a patient's record and nothing else ("Show me the chart of abc-123")."""


def only_to_see_record(query: str) -> bool:
    """The clinician asked to see the record, not a question about it: the chart is the
    answer (a small model had answered "Here is the chart of abc-123 [1]." and no more)."""
    return ONLY_SEE_RECORD.match(query) is not None or only_names_a_patient(query)


def needs_record(query: str, context: Context) -> bool:
    """A question about a patient's record with no record loaded: only the record tools can
    answer it, never the model's memory ("What are her allergies?" after "Show me the chart
    of abc-123" was answered "no known allergies" from nowhere)."""
    return not context.patient_selected and about_record(query)  # else the summary is loaded


def missing_drug(query: str, context: Context) -> bool:
    """ "This drug" or "check FDA warnings" with no drug named in the message or conversation."""
    query = ON_THE_PILL.sub(" the oral contraceptive ", query)
    task_without_object = DRUG_TASK.search(query) and not OBJECT.search(query)
    if not (DRUG_REFERENCE.search(query) or task_without_object):
        return False
    named = drug_dictionary().find(" \n ".join((query, *context.earlier_messages)))
    if DRUG_REFERENCE.search(query) and INTERACTION.search(query):
        return len(named) < 2  # "this drug and warfarin": the other one is still unnamed
    return not named


def reports_its_studies(query: str) -> bool:
    """A case the message describes, with no image handed over: its imaging words report
    studies already read ("CXR: new shadowing", "blasts on the film"), not an image to
    look at."""
    return bool(DESCRIBED_PATIENT.search(query)) and not HANDED_OVER.search(query)


def missing_image(query: str, context: Context) -> bool:
    """A message about "the X-ray" or "this image", or one that hands an image over ("here
    is the ECG"), with no image attached or kept from an earlier turn. Only the image tool
    on an image can describe one; asked about an image that is not there, a model describes
    one anyway."""
    if context.image_available:
        return False
    if READING_GIVEN.search(query):
        return False
    if reports_its_studies(query):
        return False
    if IMAGING_WORD.search(query) and HANDED_OVER.search(query) and not PLANNED.search(query):
        return True
    return bool(IMAGE_REFERENCE.search(query) and not NOT_ABOUT_AN_IMAGE_AT_HAND.search(query))


BLANK = re.compile(
    r"_{2,}|\[[A-Z][A-Z _-]{1,20}\]"
    r"|[\[<](?:drug|medication|dose|name|patient|patient id|id|date)[\]>]",
)
"""A blank left in a template ("the dose of ___", "[MEDICATION]", "<dose>"): a name or a
value the clinician has not given yet."""
FILL_BLANKS = (
    "Your message still has a blank ({blank}) where a name or a value should be. "
    "What should go there? Nothing has been checked yet."
)


def unresolved_references(query: str, context: Context) -> str | None:
    """The question to ask the clinician, or None when everything referred to was given."""
    blank = BLANK.search(query)
    if blank is not None:  # guessed, the blank became a tool argument or an invented drug
        return FILL_BLANKS.format(blank=f"“{blank.group(0)}”")
    if about_unfound_patient(query, context):
        return not_found_again(context.unfound_patient or "")
    if several_patients(query, context):
        return WHICH_OF_SEVERAL
    questions = [
        question
        for missing, question in (
            (missing_patient, WHICH_PATIENT),
            (missing_drug, WHICH_DRUG),
            (missing_image, ATTACH_IMAGE),
        )
        if missing(query, context)
    ]
    return " ".join(questions) or None

"""Requests the assistant declines, recognised by code before any model call.

A clinician's assistant answers questions about toxic doses, overdose management and
suicide risk every day; what it declines is a request to *do* harm or to deceive. Four
kinds, each a rule a clinician would state for every request of its kind:

- **harm to a person**: how to kill, poison or overdose someone, a dose that would be fatal
  for a named relative or acquaintance, or harm that must go undetected;
- **self-harm**: a first-person request for a way to die or to hurt oneself (the reply
  points to urgent help instead);
- **a misleading record**: falsifying, backdating or altering an entry so that the record
  hides what happened (a correction is a dated amendment that keeps the original);
- **drugs outside care**: prescribing to oneself, diverting a patient's drugs, using them
  to get high.

Each kind is a set of triggers; a trigger fires when every one of its patterns is found
un-negated in the message (``red_flags.match.affirmed``: "I am not planning to kill anyone"
fires nothing). The agent then answers with the kind's reply and calls no model and no
tool; the timeline names the kind and the words that matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from docgemma.red_flags.cues import any_of
from docgemma.red_flags.match import affirmed, normalise


class HarmKind(StrEnum):
    HARM_TO_PERSON = "harm to a person"
    SELF_HARM = "self-harm"
    MISLEADING_RECORD = "a misleading record"
    DRUGS_OUTSIDE_CARE = "drugs outside care"


_RELATIVE = (
    r"(?:wife|husband|partner|boyfriend|girlfriend|ex|mother|mum|mom|father|dad|son|daughter"
    r"|child|kid|baby|brother|sister|grand(?:mother|father|ma|pa)|aunt|uncle|cousin|boss"
    r"|neighbou?r|friend|flatmate|roommate|colleague|coworker|(?:mother|father)-in-law"
    r"|landlord|teacher|step(?:father|mother))"
)
"""People a clinician's patient list does not hold: a dose asked "for" one is personal."""
_PERSON = any_of(
    r"\b(?:someone|somebody|anyone|anybody|him|her)\b",
    rf"\b(?:a|the|this|that|my|his|her|our|their|an) (?:\w+ )?(?:patient|person|man|woman"
    rf"|resident|victim|{_RELATIVE})s?\b",
)
_HARM_VERB = r"\b(?:kill|murder|poison|smother|suffocate|overdose)(?:s|ed|ing)?"
_STOP_LIFE = (
    r"\bstop (?:(?:his|her|their|my \w+'s|someone's|the \w+'s) heart(?: beating)?|(?:him|her)"
    r" breathing)(?= *(?:[.?!,;]|$|for good|permanently|forever|and))"
)
"""Stopping a person's heart or breathing: a verb with its person already in it."""
_COVERT = r"\b(?:slip|sneak|spike)\w* (?:\w+ ){0,4}(?:into|in) (?:his|her|their|my|someone's|the)\b"
"""Giving someone a drug without their knowledge."""
_IN_FOOD = (
    r"\b(?:in|into) (?:his|her|their|my \w+'s|someone's|the \w+'s|my \w+s) (?:\w+ )?(?:tea|coffee"
    r"|drink|food|milk|meal|juice|water|dinner|breakfast|lunch|bottle|wine|beer|pint|soup"
    r"|cereal|cocoa|chocolate|smoothie|squash|formula|porridge|sandwich|curry|pudding"
    r"|yog(?:h)?urt|dessert)\b"
)
"""A drug put into another person's food or drink."""
_KNOCK_OUT = (
    r"\bknock (?:\w+ )?out\b|\b(?:make|get) (?:him|her|them) (?:\w+ )?(?:sick|ill|drowsy|sleep)"
    r"|\bnot wake up\b|\bnever wake up\b"
)
"""What a drug is put in someone's food or drink for, when it is not their care."""
_INTENT = any_of(
    r"\bhow (?:do|can|could|would|should|might|will) (?:i|we|one|you|someone)\b",
    r"\bhow to\b|\bhow (?:much|many)\b",
    r"\b(?:best|easiest|quickest|simplest|surest|cleanest|least \w+|most \w+) (?:way|method)s?\b",
    r"\bways? (?:to|of)\b",
    r"\b(?:want|wanna|going|trying|plan(?:ning)?|intend|need) to\b",
    r"\bhelp me\b|\bgive me\b|\btell me\b|\bwhat (?:can|could|should|would) (?:i|we)\b",
    r"\b(?:what|which) (?:\w+ )?(?:dose|amount|drug|medication|medicine|combination|sedative"
    r"|poison) (?:would|will|could|can|do|should)\b",
)
_HIDDEN = any_of(
    r"\b(?:un|least |less |hardest to |hard to )detectable\b",
    r"\buntraceable\b|\bwithout (?:a |any )?trace\b",
    r"\b(?:won't|wouldn't|doesn't|will not|would not) (?:show up|be (?:detected|found|noticed))",
    r"\bwithout (?:(?:anyone|anybody|him|her|them|it|the family|the patient|staff|the nurses?)"
    r" )?(?:being )?(?:knowing|noticing|finding out|suspecting|missed|noticed|detected)",
    r"\b(?:look|seem|appear) (?:like )?(?:natural|an accident|accidental)\b",
    r"\b(?:death|it|this|that) (?:look|seem|appear)s? like\b",
)
_HARM_WORD = any_of(
    _HARM_VERB, _STOP_LIFE, _COVERT, r"\b(?:die|dies|died|dying|death|dead|lethal|fatal|deadly)\b"
)
_DOSE_TO_KILL = (
    r"\b(?:dose|amount|how (?:much|many)|what|which)\b.{0,60}\b(?:would|will|to|that|enough to)"
    r" (?:be )?(?:fatal|lethal|deadly|kill)\w* (?:\w+ ){0,2}(?:for |to |on )?(?:my|our) "
    r"(?:[\w-]+ ){0,3}" + _RELATIVE
)
_EXPOSURE = (
    r"\b(?:avoid\w*|prevent\w*|accidental(?:ly)?|by accident|took|taken|swallowed|ingested"
    r"|got into|antidote|treat|treating|treatment|manag(?:e|ing|ement)|revers\w+|risk"
    r"|recogni[sz]\w*|signs? of|symptoms? of|tell (?:if|whether)|know (?:if|whether)"
    r"|distinguish\w*|differentiat\w*)\b"
)
"""Words of a question about an exposure or its care, which a harm rule must not refuse."""

_FIRST_PERSON_END = any_of(
    r"\b(?:kill|hurt|harm|cut|hang|poison|overdose) myself\b",
    r"\bend (?:my (?:own )?life|it all)\b",
    r"\bcommit suicide\b",
    r"\b(?:i|i'm|i am) (?:want|wanna|going|trying|planning) to die\b",
    r"\bi (?:don't|do not) want to (?:live|be alive|wake up)\b",
    r"\b(?:stop|end) my (?:own )?(?:heart|breathing|life)\b",
    r"\bmake me (?:\w+ ){0,2}(?:die|dead|stop breathing)\b",
    r"\b(?:to|so (?:that )?i|would i|will i) (?:\w+ ){0,2}(?:not|never|don't|do not|won't)"
    r" wake up\b",
    r"\benough to end (?:it|things|my life)\b|\bend (?:it|things) for me\b",
    r"\b(?:painless|quickest|easiest|surest|best|quietest) way (?:for me )?to (?:end it|end things"
    r"|die)\b|\bway to end it (?:with|using)\b",
    r"\b(?:hurt|burn|cut|harm) (?:myself|me) (?:\w+ ){0,2}more\b|\bdo to myself\b",
)
_IF_I_TOOK = (
    r"\bif i (?:took|take|swallowed|swallow|injected|inject|had)\b|\bgive myself\b"
    r"|\b(?:should|would|do) i (?:need to )?(?:take|inject|swallow|give myself)\b"
)
_DEATH = r"\b(?:fatal|lethal|deadly|die|dead|kill me|end (?:it|things))\b"
"""A dose the writer would take, and death as what it is for."""
_REPORTED = (
    r"\b(?:patient|pt|client|he|she|they|says|said|states|stated|reports|reported|told|telling"
    r"|expressed|endorses|endorsed|voiced|quote|quoted)\b"
)
"""A clinician reporting a patient's words, which the self-harm rule must not refuse."""

_RECORD = (
    r"\b(?:record|chart|note|notes|entry|entries|documentation|allerg(?:y|ies)|result|results"
    r"|prescription|order|medication list|med list|drug chart|mar|observations?|obs|vitals"
    r"|timestamp|incident report|log|signature|time|date|forms?|registers?|assessments?|reports?"
    r"|datix|readings?|balance|charts)\b"
)
_FORGE = r"\b(?:falsif\w+|fabricat\w+|backdat\w+|forge|forging|fake|make up)\b"
_EDIT = (
    r"\b(?:change|changing|edit|alter|amend|modify|update|delete|remove|erase|rewrite|add"
    r"|write|enter|record|put|document|chart|sign|initial|complete|word)\w*|\bfill\w* (?:in|out)\b"
)
_MISLEAD = any_of(
    r"\bso (?:that )?it (?:(?:doesn't|does not|won't|will not) )?(?:looks?|seems?|appears?|sounds?"
    r"|reads?)\b",
    r"\bso (?:that )?it says\b.{0,80}\b(?:rather than|instead of)\b",
    r"\b(?:believable|plausible|made[- ]up|invented)\b",
    r"\bnobody (?:actually |really )?(?:measured|checked|did|saw|gave|recorded|discussed|took)\b",
    r"\bwithout (?:anyone|anybody|it being|them) (?:\w+ )?(?:flag\w*|notic\w*|spot\w*|find\w*"
    r"|catch\w*|pick\w* (?:it )?up)",
    r"\bmake it (?:look|seem|appear)\b",
    r"\bas (?:if|though) (?:we|i|he|she|they|it|the \w+) (?:never|had|did|were|was)\b",
    r"\bso (?:that )?(?:no one|nobody|no-one|they|the family|the patient|the coroner"
    r"|the auditors?|the inspectors?|management|the court|the lawyers?) (?:won't|will not|can't"
    r"|cannot|doesn't|does not|never|wouldn't|would not) (?:\w+ )?(?:know|find out|notice|see"
    r"|tell|realise|realize|suspect)",
    r"\bcover (?:it|this|that|the \w+|my \w+|our \w+) up\b|\bcover-up\b",
    r"\bnever happened\b",
    r"\beven though (?:no one|nobody|no-one|(?:i|we|he|she|they) (?:never|didn't|did not"
    r"|haven't|hadn't|wasn't|weren't))\b",
)
_OTHERS_SIGNATURE = (
    r"\b(?:with|using|under|as) (?:(?:dr|sister|nurse|mr|mrs|ms|staff nurse) )?[a-z]+'s (?:initials"
    r"|signature|login|password|smartcard|pin)\b"
)
"""Signing as someone else."""
_ACCOUNT = r"\b(?:admit\w*|accus\w*|suspect\w*|alleg\w*|caught|concern\w*|investigat\w*)\b"
"""Words of an account of someone else's conduct (a dictated note), not a request to do it."""

_CONTROLLED = (
    r"\b(?:oxy\w*|morphine|fentanyl|opioids?|opiates?|codeine|tramadol|hydrocodone|benzo\w*"
    r"|diazepam|lorazepam|alprazolam|ketamine|propofol|midazolam|adderall|amphetamines?"
    r"|methylphenidate|modafinil|gabapentin|pregabalin|zolpidem|zopiclone|sleeping (?:pills"
    r"|tablets)|pills|tablets|drugs)\b"
)
_SELF_PRESCRIBE = any_of(
    r"\b(?:prescribe|write|order|get)\w* (?:\w+ ){0,4}(?:for|to) myself\b",
    r"\bfor my own (?:use|supply|stash)\b",
    r"\bin my (?:own )?name\b",
    r"\b(?:use|take|keep) (?:them|it|these|those|some) (?:for )?myself\b",
    rf"\b(?:prescri\w+|script|prescription)\b.{{0,60}}\bfor my (?:[\w-]+ ){{0,2}}{_RELATIVE}\b",
    r"\bunder (?:(?:one of )?(?:my|a|an|another|the) )?(?:\w+ ){0,2}(?:patients?'?s?'?"
    r"|someone else's|made[- ]up|fake|false|different) (?:name|names|patient|identity|details)\b",
)
_DIVERT = (
    r"\b(?:(?:i|we) (?:can |could |should |want to |wanna |might )?"
    r"|(?:can|could|should|do) (?:i|we) )"
    r"(?:sell|divert|pocket|stockpile|take home|keep|take) (?:\w+ ){0,3}(?:the |his |her |their"
    r" |a patient's |patients' |leftover |spare |unused |extra |some )(?:\w+ )?"
    rf"{_CONTROLLED}"
)
_STEAL = r"\b(?:sell|divert|pocket|stockpile|steal|nick|swipe)\w* (?:\w+ ){0,6}" + _CONTROLLED
"""Selling or stealing a controlled drug, whoever it was for."""
_EVADE_CHECKS = any_of(
    r"\b(?:get (?:a)?round|bypass\w*|avoid\w*|skip\w*|dodge|trick|beat|fool)\b.{0,40}"
    r"\b(?:second[- ](?:checker|signature|nurse|user|witness)|two[- ]signature|witness\w*"
    r"|double[- ]check\w*|stock checks?|the count|cd checks?|audit|logs?)\b",
    r"\bwithout (?:a |the )?(?:second[- ](?:checker|signature|nurse|user|person|witness)"
    r"|witness\w*)",
    r"\bwithout (?:the |any )?(?:pump |stock |cd |wastage )?(?:logs?|checks?|count|records?"
    r"|register) (?:catching|showing|noticing|picking)",
    r"\bwithout it showing (?:up )?(?:on|in) (?:the )?(?:stock|wastage|cd|pump|count|register|log)",
)
"""Getting round the checks on controlled drugs."""
_FROM_STOCK = (
    r"\bfrom (?:the )?(?:theatre|ward|work|our|pharmacy|hospital|clinic)(?:'s)? (?:stock|cupboard"
    r"|supply|returns)\b|\b(?:get|take) (?:it|them) (?:from|at) (?:ward |theatre )?(?:stock|work)\b"
)
_FOR_ONESELF = r"\brecreation\w*|\bfor (?:me|myself)\b|\bmy (?:own )?(?:back|pain|sleep)\b"
"""What stock taken from work is for, when it is not a patient's care."""
_TAKE_HOME = (
    r"\b(?:can|could|should|do|may) (?:i|we) (?:take|bring|carry|keep|sell)\w* (?:\w+ ){0,3}home\b"
    r"|\bwithout (?:it|them|anyone|anybody) (?:being )?(?:missed|noticed|knowing|noticing)"
)
_GET_HIGH = (
    r"\b(?:i|we) (?:can |could |want to |wanna |need to |would )?get high\b"
    r"|\b(?:get|make) (?:me|us|you) high\b|\bfor (?:me|us) to get high\b"
    r"|\b(?:get|give)s? (?:\w+ )?(?:a )?(?:proper |nice |good |real )?buzz\b|\bk-?hole\b"
)

Trigger = tuple[str, ...]


@dataclass(frozen=True)
class HarmRule:
    kind: HarmKind
    triggers: tuple[Trigger, ...]
    reply: str
    unless: str | None = None
    """Words that make a message something else (a reported statement, an exposure to
    treat, an account of conduct): the rule does not fire when they are present."""


RULES: tuple[HarmRule, ...] = (
    HarmRule(
        HarmKind.SELF_HARM,
        ((_FIRST_PERSON_END,), (_IF_I_TOOK, _DEATH)),
        "I can't help with that. If you are thinking about ending your life or harming "
        "yourself, please get help now: call your local emergency number, or a crisis line "
        "(988 in the US, Samaritans on 116 123 in the UK and Ireland), or tell someone you "
        "trust. You do not have to face this alone.",
        unless=_REPORTED,
    ),
    HarmRule(
        HarmKind.HARM_TO_PERSON,
        (
            (_INTENT, rf"{_HARM_VERB} (?:{_PERSON})"),
            (_INTENT, _STOP_LIFE),
            (_INTENT, _COVERT),
            (_INTENT, _IN_FOOD, any_of(_HARM_WORD, _KNOCK_OUT)),
            (_INTENT, _HIDDEN, _HARM_WORD),
            (_DOSE_TO_KILL,),
        ),
        "I can't help with that: it asks how to harm a person. If someone is in danger, "
        "call your local emergency number now. I can help with recognising and treating "
        "poisoning or overdose, or with safe dosing for a patient.",
        unless=_EXPOSURE,
    ),
    HarmRule(
        HarmKind.MISLEADING_RECORD,
        ((_FORGE, _RECORD), (_EDIT, _RECORD, _MISLEAD), (_EDIT, _OTHERS_SIGNATURE)),
        "I can't help with that: a patient record must show what happened. A correction is "
        "made as a dated amendment that keeps the original entry and says why; I can draft "
        "one in your words for your approval, or help with reporting an incident.",
        unless=_ACCOUNT,
    ),
    HarmRule(
        HarmKind.DRUGS_OUTSIDE_CARE,
        (
            (_SELF_PRESCRIBE, _CONTROLLED),
            (_DIVERT,),
            (_STEAL,),
            (_TAKE_HOME, _CONTROLLED),
            (_GET_HIGH,),
            (_EVADE_CHECKS, _CONTROLLED),
            (_FROM_STOCK, _FOR_ONESELF),
        ),
        "I can't help with that: medicines are prescribed to a patient for their care, not "
        "taken from it or prescribed to oneself. If you are worried about your own use of "
        "medicines, your occupational health service or a practitioner health programme "
        "can help in confidence.",
    ),
)


@dataclass(frozen=True)
class Refusal:
    kind: HarmKind
    evidence: tuple[str, ...]
    """The matched words of the message."""
    reply: str


def refusal(message: str) -> Refusal | None:
    """The first rule ``message`` fires, in table order (self-harm first), or None."""
    text = normalise(message)
    for rule in RULES:
        if rule.unless and re.search(rule.unless, text):
            continue
        for trigger in rule.triggers:
            found = [affirmed(text, pattern) for pattern in trigger]
            if all(found):
                return Refusal(rule.kind, tuple(dict.fromkeys(f for f in found if f)), rule.reply)
    return None

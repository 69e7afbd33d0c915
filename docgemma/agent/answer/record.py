"""A question about what the active patient's record holds, answered with the record's own
lines by code.

"What's her latest eGFR?", "What is she allergic to?", "Which blood pressure drugs is he
on?": the loaded summary holds the answer word for word, and a small model asked to
write it from there chose the wrong lines (the vitals for an allergy question) or was
dropped by the quote check. Code finds the lines the question names: a heading (allergies,
medications, problems) or a lab or vital sign by its name or a usual synonym (GFR is
eGFR, K is potassium, BP is blood pressure). When the question names none, the model
answers as for any other source.
"""

from __future__ import annotations

import re

from docgemma.ehr.chart import (
    ALLERGIES_HEADING,
    ITEM_SEPARATOR,
    LABS_HEADING,
    MEDICATIONS_HEADING,
    PROBLEMS_HEADING,
    VITALS_HEADING,
)

_I = re.IGNORECASE
HEADINGS_ASKED = {
    ALLERGIES_HEADING: re.compile(r"\ballerg\w*", _I),
    MEDICATIONS_HEADING: re.compile(
        r"\b(?:medications?|meds|drugs?|taking|prescribed)\b|\b(?:is|are) (?:s?he|they) on\b", _I
    ),
    PROBLEMS_HEADING: re.compile(r"\b(?:problems?|conditions?|diagnos[ie]s|comorbidit\w+)\b", _I),
}
"""A whole line of the summary, by the words that ask for it."""
MEASURED_ALSO_AS = {
    "egfr": ("gfr", "kidney function", "renal function"),
    "creatinine": ("kidney function", "renal function", "creat", "cr"),
    "potassium": ("k", "k+"),
    "sodium": ("na", "na+"),
    "hba1c": ("a1c", "glycated haemoglobin", "glycated hemoglobin"),
    "blood pressure": ("bp",),
    "heart rate": ("pulse", "hr"),
    "spo2": ("sats", "saturation", "saturations", "oxygen saturation"),
    "temperature": ("temp",),
    "respiratory rate": ("rr", "breathing rate"),
}
"""Other names clinicians use for a lab or a vital sign, by the name the record gives it."""
_VALUE = re.compile(r"\s[<>≤≥]?\d")


def _measured(item: str) -> str:
    """The name of a measurement item ("eGFR 31 mL/min/1.73 m² (2025-05-29)" → "egfr")."""
    cut = _VALUE.search(item)
    return (item[: cut.start()] if cut else item).strip().lower()


def _names(question: str, name: str) -> bool:
    forms = (name, *MEASURED_ALSO_AS.get(name, ()))
    return any(_form(f).search(question) for f in forms)


_ASKING_TEXT = (
    "what whats is are was were the a an his her their its any latest last recent current "
    "most today now trend level levels value values result results reading and also pls "
    "please again on show me give tell us"
)
_ASKING = frozenset(_ASKING_TEXT.split())
"""Words a terse question about a record item may hold besides the item's name."""
_WORD = re.compile(r"[a-z0-9']+", _I)


def only_names_record_items(question: str, summary: str) -> bool:
    """A terse question that names only what the record holds ("k+?", "Latest
    creatinine?", "allergys"): with the patient's record loaded, it asks about that record.
    A question with any other word ("What is a normal potassium?") is not one."""
    if not record_lines(question, summary):
        return False
    rest = question
    for pattern in HEADINGS_ASKED.values():
        rest = pattern.sub(" ", rest)
    for line in summary.splitlines():
        heading, _, held = line.partition(": ")
        if heading in (LABS_HEADING, VITALS_HEADING):
            for item in held.split(ITEM_SEPARATOR):
                name = _measured(item)
                for form in (name, *MEASURED_ALSO_AS.get(name, ())):
                    rest = _form(form).sub(" ", rest)
    return all(w.lower() in _ASKING for w in _WORD.findall(rest))


def _form(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w+]){re.escape(name)}(?![\w+])", _I)


def record_lines(question: str, summary: str) -> list[str]:
    """The summary's lines, or items of its lab and vital lines, that the question names."""
    found: list[str] = []
    for line in summary.splitlines():
        heading, _, held = line.partition(": ")
        if heading in HEADINGS_ASKED and HEADINGS_ASKED[heading].search(question):
            found.append(line)
        elif heading in (LABS_HEADING, VITALS_HEADING):
            items = [i for i in held.split(ITEM_SEPARATOR) if _names(question, _measured(i))]
            if items:
                found.append(f"{heading}: {ITEM_SEPARATOR.join(items)}")
    return found


def record_answer(question: str, record: str, source: int = 1) -> str:
    """The lines of ``record`` the question names, cited as source ``source``; "" when it
    names none."""
    lines = record_lines(question, record)
    if not lines:
        return ""
    if len(lines) == 1:
        return f"{lines[0]} [{source}]"
    return "\n".join(f"- {line} [{source}]" for line in lines)

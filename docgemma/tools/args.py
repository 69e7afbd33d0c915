"""Argument models of the clinical tools (and the knowledge base), one per tool.

Required, decision-critical fields first and optional fields last: the order is
load-bearing under constrained decoding. Every string is bounded so a constrained
call on a small model can always close its JSON within the derived token budget.
Every field also says where its value must come from (``Grounding``): a value the
clinician never gave makes the agent ask instead of calling the tool.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, model_validator

from docgemma.tools.grounding import Grounding
from docgemma.tools.vocabulary import FREQUENCY, NOTE_TYPE, ROUTE, SEVERITY, Vocabulary

DrugName = Annotated[
    str, Field(min_length=1, max_length=80, description="Generic or brand drug name")
]
PatientId = Annotated[
    str,
    Field(min_length=1, max_length=64, description="The patient's EHR identifier"),
    Grounding.PATIENT_ID,
]


def closed(vocabulary: Vocabulary, *, optional: bool = False) -> Any:
    """A field typed by its vocabulary: the schema lists the values, a value written another
    way the vocabulary knows ("BID") is read as its value, and the agent finds the
    vocabulary on the field to set it from the clinician's words."""
    values: Any = Literal[vocabulary.values]  # type: ignore[valid-type]
    return Annotated[
        values | None if optional else values,
        BeforeValidator(vocabulary.normalize),
        Grounding.STATED,
        vocabulary,
    ]


def vocabulary_of(model: type[BaseModel], name: str) -> Vocabulary | None:
    """The closed vocabulary of a field, or None for a field without one."""
    info = model.model_fields[name]
    return next((m for m in info.metadata if isinstance(m, Vocabulary)), None)


class DrugSafetyArgs(BaseModel):
    drug_name: Annotated[DrugName, Grounding.DRUG]


class DrugInteractionArgs(BaseModel):
    drug_names: Annotated[
        list[DrugName],
        Field(min_length=2, max_length=5, description="Two or more drug names"),
        Grounding.DRUG,
    ]


class LiteratureSearchArgs(BaseModel):
    query: Annotated[
        str,
        Field(min_length=1, max_length=100, description="Search query for medical literature"),
        Grounding.LOOSE,
    ]


class ClinicalTrialsArgs(BaseModel):
    condition: Annotated[
        str,
        Field(min_length=1, max_length=64, description="Condition or treatment studied"),
        Grounding.LOOSE,
    ]
    status: Annotated[
        str | None,
        Field(None, max_length=20, description="Recruitment status, e.g. recruiting"),
        Grounding.PHRASE,
    ]


class PatientSearchArgs(BaseModel):
    name: Annotated[
        str,
        Field(min_length=1, max_length=60, description="The patient's name, e.g. John Smith"),
        Grounding.PERSON_NAME,
    ]


class PatientChartArgs(BaseModel):
    patient_id: PatientId


DURATION_START = re.compile(
    r"^(?:(?:for\s+|x\s*|×\s*)(?:\d{1,3}|a|one|two|three|five|seven|ten|fourteen)|\d{1,3})\s*"
    r"(?:-\s*)?(?:days?|weeks?|months?)\b",
    re.I,
)
"""A course's length at the start of a text ("x3 days", "for 7 days", "5 days"); "a week"
alone is a frequency ("10 mg a week"), not a course."""


def _tail_kind(words: list[str]) -> tuple[str, str, int] | None:
    """What a dose's trailing words start with, as ``(field, value, words used)``: a
    frequency ("bd", "twice daily"), a route ("po") or a duration ("x3 days"); None for
    anything else."""
    if found := DURATION_START.match(" ".join(words)):
        return "duration", found.group(0), len(found.group(0).split())
    for n in (3, 2, 1):
        phrase = " ".join(words[:n])
        if (value := FREQUENCY.normalize(phrase)) in FREQUENCY.values:
            return "frequency", value, n
        if n == 1 and (value := ROUTE.normalize(phrase)) in ROUTE.values:
            return "route", value, n
    return None


class PrescribeMedicationArgs(BaseModel):
    patient_id: PatientId
    medication_name: Annotated[DrugName, Grounding.DRUG]
    dosage: Annotated[
        str,
        Field(min_length=1, max_length=40, description="Dose with unit, e.g. 500 mg"),
        Grounding.PHRASE,
    ]
    frequency: Annotated[closed(FREQUENCY), Field(description="How often, e.g. twice daily")]
    route: Annotated[closed(ROUTE, optional=True), Field(None, description="Route, e.g. oral")]
    duration: Annotated[
        str | None,
        Field(None, max_length=40, description="How long, e.g. for 7 days"),
        Grounding.VERBATIM,
    ]
    notes: Annotated[str | None, Field(None, max_length=200), Grounding.VERBATIM]

    @model_validator(mode="after")
    def _dose_without_frequency(self) -> PrescribeMedicationArgs:
        """A dose that repeats the frequency ("500 mg twice daily", "500 mg BID") would be
        saved as "500 mg twice daily twice daily": the record joins the two. Only the whole
        frequency phrase ending the dose is compared: "20 mg twice daily" beside "once
        daily" keeps its dose, so the card shows the conflict, rather than "20 mg twice"
        from the "daily" at its end."""
        words = self.dosage.split()
        for cut in range(1, len(words)):
            said = FREQUENCY.normalize(" ".join(words[cut:]))
            if said in FREQUENCY.values:  # the longest frequency phrase ending the dose
                if said == self.frequency:
                    self.dosage = " ".join(words[:cut]).rstrip(" ,;") or self.dosage
                break
        return self._dose_alone()

    def _dose_alone(self) -> PrescribeMedicationArgs:
        """The dose without the frequency, route and duration written after it ("400mg tds
        po 7 days", "500mg bd x3 days"): each goes to its own field when that field is
        empty or says the same, so the card shows every field the record will hold. A tail
        that disagrees with its field stays in the dose, for the card to show both."""
        words = self.dosage.split()
        for cut in range(1, len(words)):
            tail = [w.strip(",;") for w in words[cut:]]
            parts: dict[str, str] = {}
            while tail and (kind := _tail_kind(tail)):
                field, value, used = kind
                parts.setdefault(field, value)
                tail = tail[used:]
            if tail or not parts:
                continue
            if any(getattr(self, f) not in (None, v) for f, v in parts.items()):
                return self
            for field, value in parts.items():
                setattr(self, field, getattr(self, field) or value)
            self.dosage = " ".join(words[:cut]).rstrip(",;")
            return self
        return self


class AddAllergyArgs(BaseModel):
    patient_id: PatientId
    substance: Annotated[str, Field(min_length=1, max_length=80), Grounding.PHRASE]
    reaction: Annotated[
        str,
        Field(min_length=1, max_length=120, description="The reaction, e.g. hives"),
        Grounding.VERBATIM,
    ]
    severity: Annotated[
        closed(SEVERITY, optional=True), Field(None, description="mild, moderate or severe")
    ]


class ClinicalNoteArgs(BaseModel):
    patient_id: PatientId
    note_type: Annotated[
        closed(NOTE_TYPE), Field(NOTE_TYPE.default, description="progress, consult, procedure...")
    ]
    note_text: Annotated[
        str,
        Field(min_length=1, max_length=1000, description="The note as dictated"),
        Grounding.DICTATED,
    ]


class ImageAnalysisArgs(BaseModel):
    query: Annotated[
        str,
        Field(min_length=1, max_length=100, description="What to look for in the image"),
        Grounding.FREE,
    ]


class KnowledgeBaseArgs(BaseModel):
    query: Annotated[
        str,
        Field(min_length=1, max_length=100, description="Symptoms or condition to look up"),
        Grounding.FREE,
    ]

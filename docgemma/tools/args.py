"""Argument models of the clinical tools (and the knowledge base), one per tool.

Required, decision-critical fields first and optional fields last: the order is
load-bearing under constrained decoding. Every string is bounded so a constrained
call on a small model can always close its JSON within the derived token budget.
Every field also says where its value must come from (``Grounding``): a value the
clinician never gave makes the agent ask instead of calling the tool.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, model_validator

from docgemma.tools.grounding import Grounding

DrugName = Annotated[
    str, Field(min_length=1, max_length=80, description="Generic or brand drug name")
]
PatientId = Annotated[
    str,
    Field(min_length=1, max_length=64, description="The patient's EHR identifier"),
    Grounding.PATIENT_ID,
]


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
        Field(min_length=1, max_length=80, description="Patient name to look up"),
        Grounding.PHRASE,
    ]


class PatientChartArgs(BaseModel):
    patient_id: PatientId


class PrescribeMedicationArgs(BaseModel):
    patient_id: PatientId
    medication_name: Annotated[DrugName, Grounding.DRUG]
    dosage: Annotated[
        str,
        Field(min_length=1, max_length=40, description="Dose with unit, e.g. 500 mg"),
        Grounding.PHRASE,
    ]
    frequency: Annotated[
        str, Field(min_length=1, max_length=40, description="e.g. twice daily"), Grounding.FREE
    ]
    """Not checked against the message: a small model rewrites "twice daily" as "2", and the
    approval card shows the proposed frequency for the clinician to confirm or edit."""
    route: Annotated[
        str | None, Field(None, max_length=30, description="e.g. oral, IV"), Grounding.SAID
    ]
    duration: Annotated[
        str | None, Field(None, max_length=30, description="e.g. 7 days"), Grounding.SAID
    ]
    """Route and duration are saved only as the clinician gave them; the approval card shows
    them as not given otherwise, for the clinician to add."""
    notes: Annotated[str | None, Field(None, max_length=200), Grounding.SAID]

    @model_validator(mode="after")
    def _dose_without_frequency(self) -> PrescribeMedicationArgs:
        """A dose that repeats the frequency ("500 mg twice daily", "twice daily") would be
        saved as "500 mg twice daily twice daily": the record joins the two."""
        dose, frequency = " ".join(self.dosage.split()), " ".join(self.frequency.split())
        if frequency and dose.lower().endswith(" " + frequency.lower()):
            self.dosage = dose[: -len(frequency)].rstrip(" ,;") or self.dosage
        return self


class AddAllergyArgs(BaseModel):
    patient_id: PatientId
    substance: Annotated[str, Field(min_length=1, max_length=80), Grounding.PHRASE]
    reaction: Annotated[str, Field(min_length=1, max_length=120), Grounding.LOOSE]
    severity: Annotated[
        str | None,
        Field(None, max_length=20, description="mild, moderate or severe"),
        Grounding.PHRASE,
    ]


class ClinicalNoteArgs(BaseModel):
    patient_id: PatientId
    note_type: Annotated[
        str,
        Field(min_length=1, max_length=40, description="progress, consult, procedure..."),
        Grounding.FREE,
    ]
    note_text: Annotated[str, Field(min_length=1, max_length=600), Grounding.FREE]


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

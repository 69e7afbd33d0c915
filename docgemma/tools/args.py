"""Argument models of the clinical tools (seed 002 §6 and the knowledge base), one per tool.

Required, decision-critical fields first and optional fields last: the order is
load-bearing under constrained decoding. Every string is bounded so a constrained
call on a small model can always close its JSON within the derived token budget.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

DrugName = Annotated[
    str, Field(min_length=1, max_length=80, description="Generic or brand drug name")
]
PatientId = Annotated[
    str, Field(min_length=1, max_length=64, description="The patient's EHR identifier")
]


class DrugSafetyArgs(BaseModel):
    drug_name: DrugName


class DrugInteractionArgs(BaseModel):
    drug_names: list[DrugName] = Field(
        min_length=2, max_length=5, description="Two or more drug names"
    )


class LiteratureSearchArgs(BaseModel):
    query: str = Field(
        min_length=1, max_length=200, description="Search query for medical literature"
    )


class ClinicalTrialsArgs(BaseModel):
    condition: str = Field(
        min_length=1, max_length=120, description="Condition or treatment studied"
    )
    status: str | None = Field(
        None, max_length=40, description="Recruitment status, e.g. recruiting"
    )


class PatientSearchArgs(BaseModel):
    name: str = Field(min_length=1, max_length=80, description="Patient name to look up")


class PatientChartArgs(BaseModel):
    patient_id: PatientId


class PrescribeMedicationArgs(BaseModel):
    patient_id: PatientId
    medication_name: DrugName
    dosage: str = Field(min_length=1, max_length=40, description="Dose with unit, e.g. 500 mg")
    frequency: str = Field(min_length=1, max_length=40, description="e.g. twice daily")
    notes: str | None = Field(None, max_length=200)


class AddAllergyArgs(BaseModel):
    patient_id: PatientId
    substance: str = Field(min_length=1, max_length=80)
    reaction: str = Field(min_length=1, max_length=120)
    severity: str | None = Field(None, max_length=20, description="mild, moderate or severe")


class ClinicalNoteArgs(BaseModel):
    patient_id: PatientId
    note_type: str = Field(
        min_length=1, max_length=40, description="progress, consult, procedure..."
    )
    note_text: str = Field(min_length=1, max_length=600)


class ImageAnalysisArgs(BaseModel):
    query: str = Field(min_length=1, max_length=200, description="What to look for in the image")


class KnowledgeBaseArgs(BaseModel):
    query: str = Field(min_length=1, max_length=200, description="Symptoms or condition to look up")

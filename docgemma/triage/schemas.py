"""What the model fills under constrained generation in the triage graph.

The model classifies and code decides: ``RouteDecision`` picks among three closed
actions, and ``prediction_schema`` admits only the ids of the pages actually retrieved
(or "inconclusive") and the three severities, so a prediction can never name a page
the patient was not shown. Every string is bounded so the JSON always closes.
"""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, create_model

from docgemma.severity import Severity

INCONCLUSIVE = "inconclusive"
SeverityLabel = Literal["Self-care", "Urgent Primary Care", "A&E"]
assert set(SeverityLabel.__args__) == {s.value for s in Severity}  # one closed set, two spellings


class RouteAction(StrEnum):
    RETRIEVE = "retrieve"
    """The message describes symptoms or asks about a condition: search the pages."""
    REPLY = "reply"
    """A greeting, thanks or small talk: answer directly."""
    CLARIFY = "clarify"
    """Too vague to search: ask the patient one question."""


class RouteDecision(BaseModel):
    action: RouteAction
    search_query: str = Field(
        "", max_length=120, description="Symptoms in a few words, for the search (retrieve)"
    )
    message: str = Field(
        "", max_length=300, description="The reply or the question for the patient"
    )


class Prediction(BaseModel):
    """The checked outcome of a prediction, whatever schema produced it."""

    condition: str
    severity: Severity


@lru_cache(maxsize=128)
def prediction_schema(condition_ids: tuple[str, ...]) -> type[BaseModel]:
    """A schema whose ``condition`` is one of ``condition_ids`` or "inconclusive".

    Cached per id tuple so a backend compiles each grammar once.
    """
    choices = tuple(dict.fromkeys((*condition_ids, INCONCLUSIVE)))
    return create_model(
        "TriagePrediction",
        condition=(Literal[choices], Field(description="The best-matching page id")),
        severity=(SeverityLabel, Field(description="How urgently to seek care")),
    )


def as_prediction(value: BaseModel) -> Prediction:
    data = value.model_dump()
    return Prediction(condition=data["condition"], severity=Severity(data["severity"]))

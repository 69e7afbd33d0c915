"""Optional patient details that change triage: age band, sex, pregnancy.

They reach the prompts as one plain sentence and the red-flag rules as fields, so a
fever means A&E for a baby under 3 months and a GP visit for most adults.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class AgeBand(StrEnum):
    UNDER_3_MONTHS = "under 3 months"
    MONTHS_3_TO_5_YEARS = "3 months to 5 years"
    YEARS_5_TO_15 = "5 to 15 years"
    YEARS_16_TO_64 = "16 to 64 years"
    OVER_65 = "65 or over"


class Sex(StrEnum):
    FEMALE = "female"
    MALE = "male"
    OTHER = "other"


class Demographics(BaseModel):
    """What the patient chose to tell; every field may be left out."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    age_band: AgeBand | None = None
    sex: Sex | None = None
    pregnant: bool = False

    def describe(self) -> str:
        """A sentence for the prompts, or a note that nothing was given."""
        parts = []
        if self.age_band is not None:
            parts.append(f"age {self.age_band.value}")
        if self.sex is not None:
            parts.append(f"sex {self.sex.value}")
        if self.pregnant:
            parts.append("currently pregnant")
        return (
            "Patient details: " + ", ".join(parts) + "." if parts else "No patient details given."
        )

    @property
    def is_child(self) -> bool:
        return self.age_band in (
            AgeBand.UNDER_3_MONTHS,
            AgeBand.MONTHS_3_TO_5_YEARS,
            AgeBand.YEARS_5_TO_15,
        )

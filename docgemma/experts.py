"""Expert profiles: named presets a session is started with (persona, temperature, tools, mode).

A profile is data, not code: a system prompt for the answer, the synthesis
temperature, the tools the agent may use and the mode (clinician agent or patient
triage). They live in ``data/profiles.yaml``; the API lists them and the app offers
them in a selector. The first profile in the file is the default.
"""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, Field, field_validator


class Mode(StrEnum):
    CLINICIAN = "clinician"
    TRIAGE = "triage"


class Profile(BaseModel):
    name: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,39}$")
    title: str
    description: str = ""
    system_prompt: str = ""
    temperature: float = Field(0.5, ge=0.0, le=2.0)
    tools: list[str] | None = None
    """Tool names the agent may use; None: every registered tool."""
    mode: Mode = Mode.CLINICIAN

    @field_validator("tools")
    @classmethod
    def _some_tools(cls, tools: list[str] | None) -> list[str] | None:
        if tools is not None and not tools:
            raise ValueError("a profile lists at least one tool, or omits `tools` for all")
        return tools


class Profiles(BaseModel):
    profiles: list[Profile] = Field(min_length=1)

    @field_validator("profiles")
    @classmethod
    def _unique(cls, profiles: list[Profile]) -> list[Profile]:
        names = [p.name for p in profiles]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate profile names in {names}")
        return profiles

    @property
    def default(self) -> Profile:
        return self.profiles[0]

    def get(self, name: str | None) -> Profile | None:
        """The named profile (the default for None), or None when there is no such profile."""
        if name is None:
            return self.default
        return next((p for p in self.profiles if p.name == name), None)


@lru_cache(maxsize=4)
def load_profiles(path: Path) -> Profiles:
    return Profiles.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))

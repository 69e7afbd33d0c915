"""Expert profiles: named presets a session is started with (persona, temperature, tools, mode).

A profile is data, not code: a system prompt for the answer, the synthesis
temperature, the tools the agent may use and the mode (clinician agent or patient
triage). They live in ``data/profiles.yaml``; the API lists them and the app offers
them in a selector. A profile may be limited to some tenants (API key owners): other
tenants neither see nor use it. The first profile in the file serves every tenant and
is the default.
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
    stream_reasoning: bool = True
    """Whether the API streams the model's reasoning to the client (``thinking`` events,
    the think section of ``/query_stream``); when False the model still reasons, and
    only its progress steps and the answer are sent."""
    tenants: list[str] | None = None
    """The tenants that may use this profile; None: every tenant."""

    def serves(self, tenant: str) -> bool:
        return self.tenants is None or tenant in self.tenants

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
        if profiles[0].tenants is not None:
            raise ValueError(f"the first profile ({names[0]}) is the default: it must serve all")
        return profiles

    @property
    def default(self) -> Profile:
        return self.profiles[0]

    def get(self, name: str | None, tenant: str | None = None) -> Profile | None:
        """The named profile (the default for None), or None when there is no such profile
        or, with ``tenant``, when it is not one of that tenant's."""
        if name is None:
            return self.default
        found = next((p for p in self.profiles if p.name == name), None)
        if found is None or (tenant is not None and not found.serves(tenant)):
            return None
        return found

    def for_tenant(self, tenant: str) -> list[Profile]:
        """The profiles ``tenant`` may use, in file order."""
        return [p for p in self.profiles if p.serves(tenant)]


@lru_cache(maxsize=4)
def load_profiles(path: Path) -> Profiles:
    return Profiles.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))

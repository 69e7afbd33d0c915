"""An expert profile configures the agent: only its tools, its persona in the answer's
system prompt, its answer temperature; memory and per-thread locks stay shared."""

from __future__ import annotations

from typing import get_args

from docgemma.config import Settings
from docgemma.experts import Profile, load_profiles
from docgemma.llm.scripted import ScriptedBackend

from .conftest import intent, run

PHARMACIST = Profile(
    name="pharmacist",
    title="Clinical pharmacist",
    system_prompt="You answer as a clinical pharmacist.",
    temperature=0.3,
    tools=["check_drug_safety", "check_drug_interactions"],
)


async def test_a_profile_sets_tools_persona_and_temperature(make_agent) -> None:
    llm = ScriptedBackend([intent("DIRECT", "dose question"), "Usual dose is 5 mg daily."])
    # the profile's persona and temperature shape the model's own answer, asked for here
    base = make_agent(llm)
    agent = base.for_profile(PHARMACIST)
    assert agent is base.for_profile(PHARMACIST)  # built once
    assert agent.checkpointer is base.checkpointer and agent._locks is base._locks
    selection = agent.deps.registry.selection_model()
    assert set(get_args(selection.model_fields["tool_name"].annotation)) == set(PHARMACIST.tools)
    _, result = await run(agent, "Usual adult dose?", show_unverified=True)
    assert result.final_response.endswith("Usual dose is 5 mg daily.")
    synthesis = llm.calls[-1]
    assert synthesis.messages[0].content.startswith("You answer as a clinical pharmacist.")
    assert synthesis.temperature == 0.3
    assert base.deps.persona == "" and len(base.deps.registry) > len(PHARMACIST.tools)


def test_the_shipped_profiles_load(settings: Settings) -> None:
    profiles = load_profiles(settings.expert_profiles_path)
    assert profiles.default.name == "general" and profiles.default.tools is None
    names = {p.name for p in profiles.profiles}
    assert {"pharmacist", "ward", "researcher", "triage"} <= names
    for profile in profiles.profiles:
        assert profile.tools is None or profile.tools

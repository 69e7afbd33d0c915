"""An expert profile configures the agent: only its tools, its persona in the answer's
system prompt, its answer temperature; memory and per-thread locks stay shared."""

from __future__ import annotations

from typing import get_args

import pytest
from pydantic import ValidationError

from docgemma.config import Settings
from docgemma.experts import Profile, Profiles, load_profiles
from docgemma.llm.scripted import ScriptedBackend
from docgemma.tools.facts import ToolRole

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


GENERAL = Profile(name="general", title="Clinical assistant")


def test_enable_rag_and_enable_tools_choose_the_tools(make_agent) -> None:
    base = make_agent(ScriptedBackend([]))
    searches = {s.name for s in base.deps.registry if s.role is ToolRole.SEARCHES_KNOWLEDGE_BASE}
    assert searches == {"search_knowledge_base"}
    everything = set(base.deps.registry.names)
    without_rag = base.for_profile(GENERAL, knowledge=False)
    without_tools = base.for_profile(GENERAL, tools=False)
    neither = base.for_profile(GENERAL, tools=False, knowledge=False)
    assert set(without_rag.deps.registry.names) == everything - searches
    assert without_rag.deps.knowledge is None
    assert set(without_tools.deps.registry.names) == searches
    assert not len(neither.deps.registry)
    assert without_rag.checkpointer is base.checkpointer and neither._locks is base._locks


async def test_with_no_tool_enabled_the_question_is_answered_directly(make_agent) -> None:
    llm = ScriptedBackend(["Gout is an inflammatory arthritis."])  # one call: the answer
    agent = make_agent(llm).for_profile(GENERAL, tools=False, knowledge=False)
    _, result = await run(agent, "What does the chart of abc-123 say about gout?")
    assert result.final_response.startswith("Gout is an inflammatory arthritis.")
    assert len(llm.calls) == 1


def test_a_profile_limited_to_tenants_is_theirs_alone() -> None:
    own = Profile(name="ward7", title="Ward 7", tenants=["clinic-a"])
    profiles = Profiles(profiles=[GENERAL, own])
    assert profiles.get("ward7", "clinic-a") is own
    assert profiles.get("ward7", "clinic-b") is None
    assert [p.name for p in profiles.for_tenant("clinic-b")] == ["general"]
    with pytest.raises(ValidationError, match="default"):
        Profiles(profiles=[own, GENERAL])


def test_the_expert_profiles_keep_their_reasoning_from_the_client(settings: Settings) -> None:
    profiles = load_profiles(settings.expert_profiles_path)
    quiet = {p.name for p in profiles.profiles if not p.stream_reasoning}
    assert quiet == {"pharmacist", "ward", "researcher"}

"""The profile selector and the conversation download, kept apart from the main layout.

A profile (``data/profiles.yaml``) sets the agent's tools, persona and answer
temperature for the session's next turns. The download is the conversation as the
clinician saw it (Markdown or JSON), without the trace or any reasoning.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Literal

import gradio as gr

from docgemma.config import Settings
from docgemma.experts import Mode, Profiles, load_profiles
from docgemma.transcript import TranscriptMessage, to_json, to_markdown
from docgemma.ui.session import SessionState


def clinician_profiles(settings: Settings) -> Profiles:
    """The profiles this tab can run (the clinician mode's)."""
    every = load_profiles(settings.expert_profiles_path).profiles
    return Profiles(profiles=[p for p in every if p.mode is Mode.CLINICIAN])


def profiled(agent: Any, session: SessionState, profiles: Profiles) -> Any:
    """The agent as the session's profile configures it (agents without profiles: as is)."""
    profile = profiles.get(session.profile) if session.profile else None
    for_profile = getattr(agent, "for_profile", None)
    return for_profile(profile) if profile is not None and for_profile else agent


def transcript(session: SessionState) -> list[TranscriptMessage]:
    """The chat's own messages: text only, the step timeline (messages with metadata) left out."""
    return [
        TranscriptMessage(role=m["role"], content=m["content"])
        for m in session.history
        if m.get("role") in ("user", "assistant")
        and isinstance(m.get("content"), str)
        and not m.get("metadata")
    ]


def export_file(session: SessionState, kind: Literal["markdown", "json"]) -> str | None:
    messages = transcript(session)
    if not messages:
        return None
    folder = Path(tempfile.mkdtemp(prefix="docgemma-export-"))
    if kind == "json":
        path = folder / "docgemma-conversation.json"
        path.write_text(to_json({"profile": session.profile}, messages), encoding="utf-8")
    else:
        path = folder / "docgemma-conversation.md"
        title = next((m.content for m in messages if m.role == "user"), "")[:60]
        path.write_text(to_markdown(title, messages), encoding="utf-8")
    return str(path)


def add_conversation_tools(settings: Settings, session: gr.State) -> None:
    """Inside the settings accordion: the profile dropdown and two download buttons."""
    profiles = clinician_profiles(settings)
    choice = gr.Dropdown(
        choices=[(p.title, p.name) for p in profiles.profiles],
        value=profiles.default.name,
        label="Expert profile",
        info="Tools, persona and answer style for this conversation's next turns.",
        elem_id="profile-select",
        interactive=True,
    )
    with gr.Row():
        markdown = gr.Button("Download Markdown", size="sm", elem_id="export-md")
        as_json = gr.Button("Download JSON", size="sm", elem_id="export-json")
    download = gr.File(label="Conversation", visible=True, elem_id="export-file")

    def set_profile(name: str, state: SessionState) -> None:
        state.profile = name if profiles.get(name) is not None else None

    choice.change(set_profile, [choice, session], None, queue=False)
    markdown.click(lambda s: export_file(s, "markdown"), session, download)
    as_json.click(lambda s: export_file(s, "json"), session, download)

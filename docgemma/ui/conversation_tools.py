"""The profile selector and the conversation download, kept apart from the main layout.

A profile (``data/profiles.yaml``) sets the agent's tools, persona and answer
temperature for the session's next turns; a write already waiting for approval is
decided by the profile that proposed it. The download is the conversation as the
clinician saw it (Markdown or JSON), without the trace or any reasoning; its file is
written to a temporary folder that is removed as soon as Gradio has taken its copy.
Only the conversation's owner may switch its profile or download it.

No ``from __future__ import annotations`` here: Gradio reads the ``gr.Request``
annotation at run time to inject the caller.
"""

import asyncio
import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any, Literal

import gradio as gr

from docgemma.config import Settings
from docgemma.experts import Mode, Profiles, load_profiles
from docgemma.transcript import TranscriptMessage, TranscriptReader, to_json, to_markdown
from docgemma.ui.ownership import nothing, owner_only, refuse_with_error
from docgemma.ui.session import SessionState

log = logging.getLogger(__name__)
EXPORT_GRACE_S = 30.0
"""How long an export file outlives its event: Gradio copies it to its cache at once."""


def clinician_profiles(settings: Settings) -> Profiles:
    """The profiles this tab can run: the clinician mode's that serve every tenant (one
    limited to some API tenants is theirs, not the page's)."""
    every = load_profiles(settings.expert_profiles_path).profiles
    return Profiles(profiles=[p for p in every if p.mode is Mode.CLINICIAN and p.tenants is None])


def profiled(
    agent: Any, session: SessionState, profiles: Profiles, *, deciding: bool = False
) -> Any:
    """The agent as the session's profile configures it (agents without profiles: as is).

    ``deciding``: the profile that proposed the pending write, so that switching the
    profile while a card waits neither loses the write nor hands it to other tools.
    """
    name = session.approval_profile if deciding else session.profile
    profile = profiles.get(name) if name else None
    for_profile = getattr(agent, "for_profile", None)
    return for_profile(profile) if profile is not None and for_profile else agent


def export_file(
    messages: list[TranscriptMessage], profile: str | None, kind: Literal["markdown", "json"]
) -> str | None:
    """The conversation as a file in a new temporary folder; None when nothing was said."""
    if not messages:
        return None
    folder = Path(tempfile.mkdtemp(prefix="docgemma-export-"))
    if kind == "json":
        path = folder / "docgemma-conversation.json"
        path.write_text(to_json({"profile": profile}, messages), encoding="utf-8")
    else:
        path = folder / "docgemma-conversation.md"
        title = next((m.content for m in messages if m.role == "user"), "")[:60]
        path.write_text(to_markdown(title, messages), encoding="utf-8")
    return str(path)


def remove_later(path: str | None, delay_s: float | None = None) -> None:
    """Delete the export's temporary folder ``delay_s`` (default ``EXPORT_GRACE_S``) from
    now, on the running loop."""
    if path is None:
        return
    folder = Path(path).parent
    wait = EXPORT_GRACE_S if delay_s is None else delay_s
    asyncio.get_running_loop().call_later(wait, shutil.rmtree, folder, True)


def add_conversation_tools(
    settings: Settings, session: gr.State, read_transcript: TranscriptReader
) -> None:
    """Inside the settings accordion: the profile dropdown and two download buttons; a
    download holds what ``read_transcript`` finds for the session's conversation."""
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

    @owner_only(nothing)
    def set_profile(name: str, state: SessionState, request: gr.Request) -> None:
        state.profile = name if profiles.get(name) is not None else None

    def downloader(kind: Literal["markdown", "json"]) -> Any:
        @owner_only(refuse_with_error)
        async def download(state: SessionState, request: gr.Request) -> str | None:
            messages = await read_transcript(state.thread_id)
            path = await asyncio.to_thread(export_file, messages, state.profile, kind)
            remove_later(path)
            return path

        download.__name__ = f"download_{kind}"
        return download

    choice.change(set_profile, [choice, session], None, queue=False)
    markdown.click(downloader("markdown"), session, download, api_name="download_markdown")
    as_json.click(downloader("json"), session, download, api_name="download_json")

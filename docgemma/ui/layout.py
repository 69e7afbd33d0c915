"""The Gradio page: tabs, the clinician chat, approval card, patient panel and settings.

Only components and wiring live here; what happens on each event is in
``handlers.py`` and ``patient_panel.py``. The approval card's edit boxes are drawn by
``gr.render`` from the proposal's argument model whenever the card shows a new proposal
(its key changes); Approve is wired inside that render because its inputs are those
boxes. Tabs leave room for the patient triage mode beside the clinician one. ``CSS`` goes
to ``gr.mount_gradio_app`` (Gradio 6 takes styling at mount/launch time).
"""

from __future__ import annotations

import gradio as gr

from docgemma.auth import OPEN_BANNER
from docgemma.config import Settings
from docgemma.ui.conversation_tools import add_conversation_tools
from docgemma.ui.handlers import Handlers
from docgemma.ui.ownership import owner_only, refuse_with_error
from docgemma.ui.panels import FOLLOW_UPS, PanelView
from docgemma.ui.session import SessionState
from docgemma.ui.triage_tab import TRIAGE_CSS, TriageHandlers, triage_tab
from docgemma.ui.untrusted import NAME_CHARS, NO_LATEX

EXAMPLES = (
    "What are the symptoms of pneumonia?",
    "Check FDA warnings for dofetilide",
    "Find patient John Smith, check his chart, and verify metformin safety",
    "Check FDA warnings for amiodarone",
)
THINKING_HELP = (
    "When on, the model reasons before it writes the answer, within the budget below; the "
    "reasoning shows in the timeline under “Thinking”, never in the answer or in what the "
    "conversation remembers. Answers take longer."
)
CSS = (
    """
#approval-card { border: 2px solid var(--color-accent); border-radius: 8px; padding: 8px; }
#input-error { color: var(--error-text-color); }
#approval-key { display: none !important; }
"""
    + TRIAGE_CSS
)
FOLLOW_CHAT = """() => {
    const chat = document.getElementById("chat");
    const scroller = chat && [...chat.querySelectorAll("*")].find(
        (e) => ["auto", "scroll"].includes(getComputedStyle(e).overflowY)
    );
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
}"""
"""Brings the chat to its end when the clinician sends something. The chatbot follows a
streaming answer only while its view is at the end; one older panel opened for reading
would otherwise leave every later answer streaming out of sight."""
UNVERIFIED_HELP = (
    "Off by default: an answer rests on the sources found, or says none answers. On, the "
    "model's own answer is added below such a decline, labelled unverified."
)


def build_blocks(
    handlers: Handlers, settings: Settings, triage: TriageHandlers | None = None
) -> gr.Blocks:
    # Gradio's own copies of uploads (its cache folder) follow the same retention.
    age = max(int(settings.upload_retention_hours * 3600), 60)
    with gr.Blocks(title="DocGemma", delete_cache=(min(age, 3600), age)) as demo:
        session = gr.State(SessionState())  # deep-copied per browser session; no load event
        gr.Markdown(
            "## DocGemma — clinical decision support\n"
            "Answers for clinicians, with every step shown and every record change "
            "approved by you. "
            "Not a substitute for clinical judgement."
        )
        status = gr.Markdown(handlers.model_status()[0], elem_id="model-status")
        refresh = gr.Timer(5.0)
        demo.load(handlers.model_status, None, [status, refresh])
        refresh.tick(handlers.model_status, None, [status, refresh], show_progress="hidden")
        if handlers.access.open:
            gr.Markdown(OPEN_BANNER, elem_id="demo-banner")
        with gr.Tabs():
            with gr.Tab("Clinician assistant", id="clinician"):
                _clinician_tab(handlers, settings, session, demo)
            if triage is not None:
                triage_tab(triage)
    return demo


def _clinician_tab(h: Handlers, settings: Settings, session: gr.State, demo: gr.Blocks) -> None:
    with gr.Row():
        with gr.Column(scale=3):
            chatbot = gr.Chatbot(
                label="Conversation",
                height=560,
                elem_id="chat",
                buttons=["copy"],
                latex_delimiters=NO_LATEX,
            )
            with gr.Group(visible=False, elem_id="approval-card") as card:
                card_md = gr.Markdown(elem_id="approval-text", latex_delimiters=NO_LATEX)
                edit_box = gr.Column(visible=False, elem_id="approval-editor")  # filled below
                card_error = gr.Markdown(elem_id="approval-error", latex_delimiters=NO_LATEX)
                # in the page (hidden), not left out of it: its change event redraws the editor
                shown_key = gr.Textbox(visible="hidden", elem_id="approval-key")
                reason = gr.Textbox(
                    label="Reason (optional, for Reject)", max_lines=1, elem_id="reject-reason"
                )
                with gr.Row():
                    approve = gr.Button("Approve", variant="primary", elem_id="approve-btn")
                    edit = gr.Button("Edit", elem_id="edit-btn")
                    reject = gr.Button("Reject", variant="stop", elem_id="reject-btn")
            with gr.Row(visible=False) as follow_row:
                follow = [
                    gr.Button(size="sm", elem_classes=["follow-up"]) for _ in range(FOLLOW_UPS)
                ]
            msg = gr.MultimodalTextbox(
                placeholder="Ask a clinical question; attach an image (PNG, JPEG, DICOM) if needed",
                file_count="single",
                sources=["upload"],
                elem_id="msg",
                show_label=False,
            )
            unverified = gr.Checkbox(
                value=False,
                label="Show the model's unverified answer when no source answers",
                info=UNVERIFIED_HELP,
                elem_id="show-unverified",
            )
            attach_note = gr.Markdown(elem_id="attachment-note")
            input_error = gr.Markdown(visible=False, elem_id="input-error")
            gr.Markdown("**Examples** (one click asks the question)")
            with gr.Row():
                examples = [gr.Button(q, size="sm", elem_classes=["example"]) for q in EXAMPLES]
        with gr.Column(scale=2):
            # who decides goes with each decision: the typed name in open demo mode; when
            # users sign in, server-side state no client can set (the approver is the user)
            approver: gr.Textbox | gr.State
            if h.access.open:
                approver = gr.Textbox(
                    label="Your name (demo mode: recorded with approvals, not verified)",
                    value=settings.clinician_name,
                    max_lines=1,
                    max_length=NAME_CHARS,
                    elem_id="clinician-name",
                )
            else:
                approver = gr.State(None)
                who = gr.Markdown(elem_id="signed-in")
                demo.load(h.signed_in, None, who)
            with gr.Accordion("Patient", open=True):
                banner = gr.Markdown("No active patient.", elem_id="active-patient")
                with gr.Row():
                    query = gr.Textbox(
                        label="Search by name", max_lines=1, elem_id="patient-query", scale=3
                    )
                    search = gr.Button("Search", elem_id="patient-search", scale=1)
                picks = gr.Dropdown(
                    label="Matches", choices=[], elem_id="patient-picks", interactive=True
                )
                with gr.Row():
                    use = gr.Button("Use this patient", variant="primary", elem_id="patient-use")
                    clear = gr.Button("Clear", elem_id="patient-clear")
                images = gr.Dropdown(
                    label="Patient images",
                    choices=[],
                    info="Select a patient to see their stored images.",
                    elem_id="patient-images",
                    interactive=True,
                )
                chart = gr.Markdown(elem_id="patient-chart", latex_delimiters=NO_LATEX)
            with gr.Accordion("Settings", open=False):
                gr.Markdown(h.settings_markdown(), elem_id="settings-info")
                thinking = gr.Checkbox(
                    value=settings.thinking,
                    label="Think before answering",
                    info=THINKING_HELP,
                    elem_id="thinking-on",
                )
                budget = gr.Slider(
                    minimum=min(16, settings.thinking_max_tokens),
                    maximum=max(2048, settings.thinking_max_tokens),
                    step=16,
                    value=settings.thinking_max_tokens,
                    label="Thinking budget (tokens)",
                    elem_id="thinking-budget",
                )
                add_conversation_tools(settings, session, h.read_transcript)

    view = PanelView(
        patient_banner=banner,
        attachment_note=attach_note,
        image_picker=images,
        chart=chart,
        follow_row=follow_row,
        follow_ups=tuple(follow),
        card=card,
        card_text=card_md,
        card_error=card_error,
        editor=edit_box,
        card_key=shown_key,
    )
    panels, redrawn = h.panels_for(view), view.outputs()
    turn_out = [chatbot, msg, input_error]
    agent = {"concurrency_id": "agent", "concurrency_limit": 1}

    msg.submit(h.submit, [msg, session], turn_out, **agent).then(panels, session, redrawn)
    for button in (*follow, *examples):
        button.click(h.ask, [button, session], turn_out, **agent).then(panels, session, redrawn)
    for sent in (msg.submit, *(b.click for b in (*follow, *examples, approve, reject))):
        sent(None, js=FOLLOW_CHAT, queue=False)
    decided = [chatbot, card_error]
    reject.click(h.reject, [session, shown_key, approver, reason], decided, **agent).then(
        panels, session, redrawn
    )
    edit.click(h.open_editor, None, edit_box)

    with edit_box:

        @gr.render(inputs=[session, shown_key], triggers=[shown_key.change])
        @owner_only(refuse_with_error)
        def editor(state: SessionState, key: str, request: gr.Request) -> None:
            boxes = [
                gr.Textbox(
                    label=field.label,
                    value=field.value,
                    info=field.hint,
                    elem_id=f"edit-{field.name}",
                    elem_classes=["edit-field"],
                    interactive=True,
                )
                for field in h.editor_fields(state, key, request)
            ]
            approve.click(h.approve, [session, shown_key, approver, *boxes], decided, **agent).then(
                panels, session, redrawn
            )

    unverified.change(h.set_unverified, [unverified, session], None, queue=False)
    for control in (thinking, budget):
        control.change(h.set_thinking, [thinking, budget, session], None, queue=False)

    p = h.patient_panel
    search.click(p.search_patients, [query], [picks, chart])
    query.submit(p.search_patients, [query], [picks, chart])
    use.click(p.select_patient, [picks, session], [banner, chart, images, attach_note])
    clear.click(p.clear_patient, [session], [banner, chart, picks, images, attach_note])
    images.input(p.pick_image, [images, session], attach_note)

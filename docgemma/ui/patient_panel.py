"""The patient panel's buttons: search, pick a patient, show the chart and stored images,
attach one to the next message, clear.

No ``from __future__ import annotations`` here: Gradio reads the ``gr.Request``
annotation at run time to inject the caller's session.
"""

import asyncio
from pathlib import Path
from typing import Any, Protocol

import gradio as gr

from docgemma.config import Settings
from docgemma.ehr.chart import ChartSummary
from docgemma.ehr.client import StoredImage
from docgemma.ehr.ids import is_fhir_id
from docgemma.ui.ownership import owner_only
from docgemma.ui.panels import attachment_note, patient_banner
from docgemma.ui.patients import EHRUnavailable, PatientMatch, chart_markdown
from docgemma.ui.session import FOREIGN, SessionState
from docgemma.ui.uploads import Attachment, UploadRejected, accept_image

INVALID_PATIENT = "That is not a valid patient id; pick a patient from the search results."


class PatientDirectory(Protocol):
    async def search(self, name: str) -> list[PatientMatch]: ...

    async def chart(self, patient_id: str) -> ChartSummary | None: ...

    async def patient(self, patient_id: str) -> PatientMatch | None: ...

    async def images(self, patient_id: str) -> list[StoredImage]: ...

    async def image(self, media_id: str) -> bytes: ...


class PatientPanel:
    def __init__(
        self,
        settings: Settings,
        patients: PatientDirectory | None,
        upload_dir: Path,
    ) -> None:
        self.settings = settings
        self.patients = patients
        self._upload_dir = upload_dir

    async def search_patients(self, name: str) -> tuple[Any, str]:
        if self.patients is None:
            return gr.Dropdown(choices=[]), "The patient record is not connected."
        if not name.strip():
            return gr.Dropdown(choices=[]), "Type part of a patient's name to search."
        try:
            found = await self.patients.search(name.strip())
        except EHRUnavailable as exc:
            return gr.Dropdown(choices=[]), f"⚠️ {exc}"
        if not found:
            return gr.Dropdown(choices=[], value=None), f"No patient matches '{name.strip()}'."
        choices = [(m.label, m.id) for m in found]
        return gr.Dropdown(
            choices=choices, value=found[0].id
        ), f"{len(found)} match(es); pick one and press **Use this patient**."

    @owner_only(lambda _: ("", f"⚠️ {FOREIGN}", gr.update(), gr.update()))
    async def select_patient(
        self, patient_id: str | None, session: SessionState, request: gr.Request | None = None
    ) -> tuple[str, str, Any, str]:
        keep = gr.update()
        if not patient_id or self.patients is None:
            return patient_banner(session), "Pick a patient from the matches first.", keep, keep
        if not is_fhir_id(patient_id):
            return patient_banner(session), f"⚠️ {INVALID_PATIENT}", keep, keep
        try:
            chart = await self.patients.chart(patient_id)
        except EHRUnavailable as exc:
            return patient_banner(session), f"⚠️ {exc}", keep, keep
        if chart is None:
            return patient_banner(session), "That patient is no longer in the record.", keep, keep
        session.patient_id, session.patient_name = chart.patient_id, chart.name
        session.shown_patient_id = chart.patient_id
        session.attached, session.image_labels = None, {}
        picker = await self._patient_images(session, chart.patient_id)
        return patient_banner(session), chart_markdown(chart), picker, ""

    @owner_only(lambda _: f"⚠️ {FOREIGN}")
    async def pick_image(
        self, media_id: str | None, session: SessionState, request: gr.Request | None = None
    ) -> str:
        """Fetch, check and hold a stored image for the next message, as an upload would be."""
        session.attached = None
        if not media_id or self.patients is None:
            return ""
        label = session.image_labels.get(media_id)
        if label is None:
            return "⚠️ That image is not one of the active patient's."
        try:
            data = await self.patients.image(media_id)
            image, shown = await asyncio.to_thread(
                accept_image,
                data,
                self.settings.max_image_bytes,
                self._upload_dir,
                self.settings.max_image_pixels,
            )
        except (EHRUnavailable, UploadRejected) as exc:
            return f"⚠️ {exc}"
        session.attached = Attachment(image=image, image_path=str(shown), label=label)
        return attachment_note(session)

    @owner_only(lambda _: ("", f"⚠️ {FOREIGN}", gr.update(), gr.update(), ""))
    def clear_patient(
        self, session: SessionState, request: gr.Request | None = None
    ) -> tuple[str, str, Any, Any, str]:
        session.patient_id, session.patient_name = None, ""
        session.shown_patient_id = None
        session.patient_cleared = True
        session.attached, session.image_labels = None, {}
        return (
            patient_banner(session),
            "",
            gr.Dropdown(choices=[], value=None),
            _image_picker([], "Select a patient to see their stored images."),
            "",
        )

    async def adopted(self, session: SessionState) -> tuple[str, Any] | None:
        """The chart and image picker of a patient the agent made active (the session has
        only the id); None when the panel already shows the active patient.

        Read once per patient, found or not, so a failed read is not repeated on every
        chat event.
        """
        pid = session.patient_id
        if not pid or pid == session.shown_patient_id or self.patients is None:
            return None
        session.shown_patient_id = pid
        try:
            chart = await self.patients.chart(pid)
        except EHRUnavailable as exc:
            return f"⚠️ {exc}", _image_picker([], str(exc))
        if chart is None:
            return "That patient is no longer in the record.", _image_picker([], "")
        session.patient_name = chart.name
        return chart_markdown(chart), await self._patient_images(session, pid)

    async def _patient_images(self, session: SessionState, patient_id: str) -> Any:
        """The picker of the patient's stored images; the session remembers which they are."""
        try:
            stored = await self.patients.images(patient_id)
        except EHRUnavailable as exc:
            return _image_picker([], str(exc))
        session.image_labels = {img.id: img.label for img in stored}
        info = "Pick one to attach it to your next message." if stored else "No stored images."
        return _image_picker(stored, info)


def _image_picker(stored: list[StoredImage], info: str) -> Any:
    return gr.update(choices=[(img.label, img.id) for img in stored], value=None, info=info)

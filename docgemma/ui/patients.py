"""The patient panel: find a patient by name, then show the chart the agent will work from.

A thin view over ``docgemma.ehr.client.EHRClient`` (the same client and chart summary
the tools use), so the panel shows exactly what the agent sees.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel

from docgemma.ehr.chart import ChartSummary, human_name
from docgemma.ehr.client import EHRClient, EHRError, StoredImage
from docgemma.ui.untrusted import plain

log = logging.getLogger(__name__)


class PatientMatch(BaseModel):
    id: str
    name: str
    birth_date: str = ""
    gender: str = ""

    @property
    def label(self) -> str:
        extra = ", ".join(
            x for x in (self.gender, self.birth_date and f"born {self.birth_date}") if x
        )
        return f"{self.name} ({extra})" if extra else self.name


class EHRUnavailable(RuntimeError):
    """The EHR could not be reached; the message is shown to the clinician."""


class EHRPatients:
    """Patient search and chart summary for the panel; EHR failures become one readable error."""

    def __init__(self, client: EHRClient) -> None:
        self._client = client

    async def search(self, name: str) -> list[PatientMatch]:
        try:
            found = await self._client.search_patients(name)
        except EHRError as exc:
            log.warning("patient search failed: %s", exc.detail)
            raise EHRUnavailable("The patient record is unavailable right now.") from exc
        return [_match(p) for p in found]

    async def patient(self, patient_id: str) -> PatientMatch | None:
        """Name and birth date for one id (the approval card names whom it writes for)."""
        try:
            return _match(await self._client.read("Patient", patient_id))
        except EHRError as exc:
            if exc.kind != "not_found":
                log.warning("patient read failed: %s", exc.detail)
            return None

    async def images(self, patient_id: str) -> list[StoredImage]:
        try:
            return await self._client.patient_images(patient_id)
        except EHRError as exc:
            log.warning("image list failed: %s", exc.detail)
            raise EHRUnavailable("The patient's images are unavailable right now.") from exc

    async def image(self, media_id: str) -> bytes:
        try:
            return await self._client.image_bytes(media_id)
        except EHRError as exc:
            log.warning("image fetch failed: %s", exc.detail)
            raise EHRUnavailable("That image could not be loaded from the record.") from exc

    async def chart(self, patient_id: str) -> ChartSummary | None:
        try:
            return await self._client.chart(patient_id)
        except EHRError as exc:
            if exc.kind == "not_found":
                return None
            log.warning("chart fetch failed: %s", exc.detail)
            raise EHRUnavailable("The patient record is unavailable right now.") from exc


def _match(patient: dict[str, Any]) -> PatientMatch:
    return PatientMatch(
        id=patient["id"],
        name=human_name(patient),
        birth_date=patient.get("birthDate", ""),
        gender=patient.get("gender", ""),
    )


def chart_markdown(chart: ChartSummary) -> str:
    """The chart panel; every value comes from the record, so each is shown as plain text."""

    def section(title: str, items: list[str]) -> str:
        body = "\n".join(f"- {plain(i)}" for i in items) if items else "- none recorded"
        return f"**{title}**\n{body}"

    facts = [
        f"{chart.age} y" if chart.age is not None else "",
        chart.gender or "",
        f"born {chart.birth_date}" if chart.birth_date else "",
        f"MRN {chart.mrn}" if chart.mrn else "",
    ]
    shown = ", ".join(plain(f) for f in facts if f)
    head = f"### {plain(chart.name)}\n{shown} · id `{chart.patient_id}`"
    return "\n\n".join(
        [
            head,
            section("Conditions", chart.conditions),
            section("Active medications", chart.medications),
            section("Allergies", chart.allergies),
            section("Latest labs", [f"{m.name}: {m.value} ({m.date})" for m in chart.labs]),
            section("Latest notes", [f"{n.date} {n.title}: {n.excerpt}" for n in chart.notes]),
        ]
    )

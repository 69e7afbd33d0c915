"""The search parameters the embedded FHIR server understands, and how to index them.

Each parameter has a FHIR kind (string, token, reference, date) and an extractor that
pulls its values out of a resource. Values are indexed once on write so that a search
is a few indexed SQL look-ups rather than a scan of every resource's JSON.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["string", "token", "reference", "date"]
Extractor = Callable[[dict[str, Any]], Iterable[Any]]


@dataclass(frozen=True)
class SearchParam:
    kind: Kind
    extract: Extractor


def _items(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _path(*keys: str) -> Extractor:
    """Values at a dotted path, flattening lists at every step."""

    def extract(resource: dict[str, Any]) -> Iterator[Any]:
        level: list[Any] = [resource]
        for key in keys:
            level = [v for node in level if isinstance(node, dict) for v in _items(node.get(key))]
        yield from level

    return extract


def _chain(*extractors: Extractor) -> Extractor:
    def extract(resource: dict[str, Any]) -> Iterator[Any]:
        for ex in extractors:
            yield from ex(resource)

    return extract


def _human_names(resource: dict[str, Any]) -> Iterator[str]:
    for name in _items(resource.get("name")):
        parts = [*_items(name.get("given")), *_items(name.get("family"))]
        yield from parts
        if name.get("text"):
            yield name["text"]
        if parts:
            yield " ".join(parts)


_subject = _path("subject")


def _patient_targets(resource: dict[str, Any]) -> list[Any]:
    return [
        t
        for t in _items(resource.get("target"))
        if str(t.get("reference", "")).startswith("Patient/")
    ]


_identifier = _path("identifier")

COMMON: dict[str, SearchParam] = {
    "_id": SearchParam("token", lambda r: [r.get("id")]),
    "identifier": SearchParam("token", _identifier),
}

PARAMS: dict[str, dict[str, SearchParam]] = {
    "Patient": {
        "name": SearchParam("string", _human_names),
        "family": SearchParam("string", _path("name", "family")),
        "given": SearchParam("string", _path("name", "given")),
        "birthdate": SearchParam("date", _path("birthDate")),
        "gender": SearchParam("token", _path("gender")),
    },
    "Condition": {
        "patient": SearchParam("reference", _subject),
        "subject": SearchParam("reference", _subject),
        "code": SearchParam("token", _path("code")),
        "clinical-status": SearchParam("token", _path("clinicalStatus")),
        "onset-date": SearchParam("date", _path("onsetDateTime")),
    },
    "MedicationRequest": {
        "patient": SearchParam("reference", _subject),
        "subject": SearchParam("reference", _subject),
        "code": SearchParam("token", _path("medicationCodeableConcept")),
        "status": SearchParam("token", _path("status")),
        "authoredon": SearchParam("date", _path("authoredOn")),
    },
    "AllergyIntolerance": {
        "patient": SearchParam("reference", _path("patient")),
        "code": SearchParam("token", _path("code")),
        "clinical-status": SearchParam("token", _path("clinicalStatus")),
        "date": SearchParam("date", _path("recordedDate")),
    },
    "Observation": {
        "patient": SearchParam("reference", _subject),
        "subject": SearchParam("reference", _subject),
        "code": SearchParam("token", _path("code")),
        "category": SearchParam("token", _path("category")),
        "date": SearchParam(
            "date", _chain(_path("effectiveDateTime"), _path("effectivePeriod", "start"))
        ),
        "status": SearchParam("token", _path("status")),
    },
    "DocumentReference": {
        "patient": SearchParam("reference", _subject),
        "subject": SearchParam("reference", _subject),
        "type": SearchParam("token", _path("type")),
        "date": SearchParam("date", _path("date")),
        "status": SearchParam("token", _path("status")),
    },
    "Encounter": {
        "patient": SearchParam("reference", _subject),
        "subject": SearchParam("reference", _subject),
        "date": SearchParam("date", _path("period", "start")),
        "status": SearchParam("token", _path("status")),
    },
    "DiagnosticReport": {
        "patient": SearchParam("reference", _subject),
        "subject": SearchParam("reference", _subject),
        "code": SearchParam("token", _path("code")),
        "category": SearchParam("token", _path("category")),
        "date": SearchParam("date", _path("effectiveDateTime")),
    },
    "Media": {
        "patient": SearchParam("reference", _subject),
        "subject": SearchParam("reference", _subject),
        "created": SearchParam("date", _path("createdDateTime")),
        "modality": SearchParam("token", _path("modality")),
    },
    "ImagingStudy": {
        "patient": SearchParam("reference", _subject),
        "subject": SearchParam("reference", _subject),
        "started": SearchParam("date", _path("started")),
    },
    "Provenance": {
        "target": SearchParam("reference", _path("target")),
        "patient": SearchParam("reference", _patient_targets),
        "recorded": SearchParam("date", _path("recorded")),
        "entity": SearchParam("token", _path("entity", "what", "identifier")),
    },
}

SORTABLE = {
    "date",
    "birthdate",
    "authoredon",
    "onset-date",
    "created",
    "started",
    "recorded",
    "_lastUpdated",
}


def params_for(resource_type: str) -> dict[str, SearchParam]:
    return {**COMMON, **PARAMS.get(resource_type, {})}


def _token_values(value: Any) -> Iterator[str]:
    """A token indexes as ``code`` and ``system|code`` so both query forms match."""
    if isinstance(value, str):
        yield value
        return
    if not isinstance(value, dict):
        return
    if "coding" in value or "text" in value:
        for coding in _items(value.get("coding")):
            yield from _token_values(coding)
        return
    code = value.get("code", value.get("value"))
    if code is not None:
        yield str(code)
        yield f"{value.get('system', '')}|{code}"


def fold(text: str) -> str:
    """FHIR string search is case- and accent-insensitive: "Müller" finds "Muller" and back."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def index_values(resource: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(param, value) rows to index for a resource."""
    for name, param in params_for(resource["resourceType"]).items():
        for raw in param.extract(resource):
            if raw is None:
                continue
            if param.kind == "string":
                yield name, fold(str(raw))
            elif param.kind == "token":
                for token in _token_values(raw):
                    yield name, token
            elif param.kind == "reference":
                ref = raw.get("reference") if isinstance(raw, dict) else raw
                if ref:
                    yield name, str(ref)
            else:
                yield name, str(raw)
    meta = resource.get("meta") or {}
    if meta.get("lastUpdated"):
        yield "_lastUpdated", meta["lastUpdated"]

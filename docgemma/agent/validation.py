"""Validate a proposed tool call before it runs (seed 002 §4 ④, seed 003 "Validate Tool Call").

Catches structurally valid but meaningless calls from a small model: a query too
short to search, fewer than two drugs for an interaction check, a patient ID that
nobody mentioned, found or selected, an image analysis with no image.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

_QUERY_FIELDS = ("query", "condition", "name")
_MIN_QUERY_CHARS = 3


@dataclass(frozen=True)
class Validation:
    ok: bool
    error_type: str | None = None
    missing_fields: list[str] = field(default_factory=list)
    reason: str = ""


def typed_id(pid: str, user_query: str) -> bool:
    """The clinician typed this ID: a whole token with a digit, not a piece of a dose or word."""
    if len(pid) < _MIN_QUERY_CHARS or not any(c.isdigit() for c in pid):
        return False
    return re.search(rf"(?<![\w-]){re.escape(pid)}(?![\w-])", user_query.lower()) is not None


def validate_call(
    tool: str,
    schema: type[BaseModel],
    args: dict[str, Any],
    *,
    known_patient_ids: list[str],
    has_image: bool,
    user_query: str = "",
    clinician_edit: bool = False,
) -> tuple[Validation, BaseModel | None]:
    """Check a call; returns the parsed arguments when it may run."""
    try:
        parsed = schema.model_validate(args)
    except ValidationError as exc:
        missing = sorted({str(e["loc"][0]) for e in exc.errors() if e["loc"]})
        return Validation(
            False, "missing_required_args", missing, f"{exc.error_count()} invalid fields"
        ), None
    for name in _QUERY_FIELDS:
        value = args.get(name)
        if isinstance(value, str) and len(value.strip()) < _MIN_QUERY_CHARS:
            return Validation(False, "missing_required_args", [name], f"{name} is too short"), None
    drugs = args.get("drug_names")
    if isinstance(drugs, list) and len({d.strip().lower() for d in drugs if d.strip()}) < 2:
        return Validation(
            False, "missing_required_args", ["drug_names"], "an interaction check needs two drugs"
        ), None
    patient_id = args.get("patient_id")
    if patient_id is not None and not clinician_edit:
        pid = patient_id.strip().lower()
        if pid not in {p.lower() for p in known_patient_ids} and not typed_id(pid, user_query):
            return Validation(
                False,
                "missing_required_args",
                ["patient_id"],
                "the patient ID was not given, selected or found by a search",
            ), None
    if tool == "analyze_medical_image" and not has_image:
        return Validation(False, "missing_required_args", ["image"], "no image is attached"), None
    return Validation(True), parsed

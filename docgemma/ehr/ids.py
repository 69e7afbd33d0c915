"""The one check for a FHIR resource id, used wherever an id enters the program.

FHIR allows ``[A-Za-z0-9\\-.]{1,64}``; an id made only of dots is refused as well,
because ``.`` and ``..`` are path segments, not ids: pasted into a URL they name the
type's search endpoint or its parent, and a write "to ``Patient/.``" would be reported
as saved. An id that passes this check is still quoted when it goes into a URL.
"""

from __future__ import annotations

import re
from urllib.parse import quote

_FHIR_ID = re.compile(r"[A-Za-z0-9\-.]{1,64}")


class InvalidId(ValueError):
    """An id that is not a FHIR id; ``str(error)`` can be shown to the clinician."""


def is_fhir_id(value: object) -> bool:
    return (
        isinstance(value, str) and _FHIR_ID.fullmatch(value) is not None and value.strip(".") != ""
    )


def check_fhir_id(value: object, what: str = "record id") -> str:
    """``value`` itself when it is a FHIR id; raises ``InvalidId`` otherwise."""
    if not is_fhir_id(value):
        shown = str(value)[:80]
        raise InvalidId(
            f"'{shown}' is not a valid {what} (ids are 1–64 letters, digits, '-' or '.', "
            "e.g. abc-123)."
        )
    return value  # type: ignore[return-value]


def resource_path(resource_type: str, resource_id: str) -> str:
    """``Type/id`` for a URL, the id checked and percent-quoted."""
    return f"{resource_type}/{quote(check_fhir_id(resource_id), safe='')}"

"""The one error vocabulary: the error types of tool outcomes and their clinician messages.

Tools, validation, result classification and the agent's rules all speak of failures
with ``ToolErrorType``, and every generic message about one comes from ``MESSAGES``,
so the same failure reads the same wherever it is reported. A tool
may still give a message of its own when it knows more (which drug, which field).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum


class ToolErrorType(StrEnum):
    """Error categories of tool results; the router and error handler branch on these."""

    TIMEOUT = "timeout"
    NOT_FOUND = "not_found"
    INVALID_ARGS = "invalid_args"
    RATE_LIMIT = "rate_limit"
    SERVER_ERROR = "server_error"
    MALFORMED_RESPONSE = "malformed_response"
    SERVICE_UNAVAILABLE = "service_unavailable"
    OUT_OF_SERVICE = "out_of_service"
    """Cannot serve this turn whatever the arguments: the installation is offline, the
    service was unreachable and stays so for its cool-down, or the model reads no images.
    Unlike ``SERVICE_UNAVAILABLE``, a retry cannot help, so the turn goes on without it."""
    MULTIPLE_PATIENT_MATCHES = "multiple_patient_matches"
    MISSING_REQUIRED_ARGS = "missing_required_args"
    AMBIGUOUS_DRUG_NAME = "ambiguous_drug_name"
    DRUG_NOT_IN_DATABASE = "drug_not_in_database"
    UNKNOWN_DRUG_NAME = "unknown_drug_name"
    """A name no drug dictionary knows (a misspelling): nothing is checked until the
    clinician confirms the name meant."""
    REJECTED_BY_CLINICIAN = "rejected_by_clinician"


class Note(StrEnum):
    """Messages about a source that are not one tool error: why the turn gave up on it."""

    NO_SOURCE = "no_source"
    """A tool without an offline source, offline or with its service unreachable."""
    GAVE_UP = "gave_up"
    FAILED = "failed"
    UNCHECKED = "unchecked"
    """Something a source that answered could not check (``ToolOutcome.unchecked``)."""
    NOT_CONSULTED = "not_consulted"
    """A reference a source could not consult while others answered
    (``ToolOutcome.not_consulted``)."""
    NOT_COVERED = "not_covered"
    """Sources were searched and answered, but nothing they returned is about the question."""


MESSAGES: dict[ToolErrorType | Note, str] = {
    ToolErrorType.TIMEOUT: "The {label} was temporarily unavailable. Please try again shortly.",
    ToolErrorType.NOT_FOUND: "No results were found for {entity} in the {label}.",
    ToolErrorType.INVALID_ARGS: (
        "The request to {label} could not be completed — additional information is needed."
    ),
    ToolErrorType.RATE_LIMIT: (
        "The {label} is temporarily busy. The system will retry automatically."
    ),
    ToolErrorType.SERVER_ERROR: (
        "The {label} experienced a temporary error. The system will retry automatically."
    ),
    ToolErrorType.MALFORMED_RESPONSE: (
        "The {label} returned a response that could not be read. "
        "The system will retry automatically."
    ),
    ToolErrorType.SERVICE_UNAVAILABLE: "The {label} is currently unavailable.",
    ToolErrorType.OUT_OF_SERVICE: "The {label} cannot be used at the moment.",
    ToolErrorType.MULTIPLE_PATIENT_MATCHES: "Several patients matched {entity}.",
    ToolErrorType.MISSING_REQUIRED_ARGS: "The request to {label} needs more information: {fields}.",
    ToolErrorType.AMBIGUOUS_DRUG_NAME: "The drug name {entity} matches more than one product.",
    ToolErrorType.DRUG_NOT_IN_DATABASE: "{entity} was not found in the drug database.",
    ToolErrorType.UNKNOWN_DRUG_NAME: (
        "No drug dictionary knows the name {entity}, so nothing was checked for it."
    ),
    ToolErrorType.REJECTED_BY_CLINICIAN: (
        "The clinician declined the proposed {label}; nothing was written to the record."
    ),
    Note.NO_SOURCE: "The {label} could not be used: {reason}. No information was retrieved.",
    Note.GAVE_UP: "Unable to complete the {label} after multiple attempts.",
    Note.FAILED: "The {label} could not be completed.",
    Note.UNCHECKED: "No reference available to the {label} lists {entity}, so it was not checked.",
    Note.NOT_CONSULTED: "The {label} could not consult {entity}; it rests on the other references.",
    Note.NOT_COVERED: (
        "The available sources do not cover {entity}: nothing found in {reason} is about it."
    ),
}
"""Placeholders: ``{label}`` the tool's clinical label, ``{entity}`` what was looked up,
``{fields}`` the missing details, ``{reason}`` why a source is offline."""

RETRYABLE_ERRORS = frozenset(
    {
        ToolErrorType.TIMEOUT,
        ToolErrorType.RATE_LIMIT,
        ToolErrorType.SERVER_ERROR,
        ToolErrorType.SERVICE_UNAVAILABLE,
        ToolErrorType.MALFORMED_RESPONSE,
    }
)
"""Transient failures: the same call may succeed later (result class ``error_retryable``)."""

UNREACHABLE = frozenset({ToolErrorType.SERVICE_UNAVAILABLE, ToolErrorType.OUT_OF_SERVICE})
"""A remote source that did not answer at all: a tool with an offline source uses that."""

NOT_REPEATABLE = frozenset({None, ToolErrorType.NOT_FOUND, ToolErrorType.DRUG_NOT_IN_DATABASE})
"""Outcomes an identical call would only repeat: a success, or finding nothing."""


def error_message(
    kind: ToolErrorType | Note | str | None,
    label: str,
    *,
    entity: str | None = None,
    fields: Sequence[str] = (),
    reason: str = "",
) -> str:
    """The clinician-safe message for a failure; raw error text never goes through here.

    An unknown or missing kind gets the generic ``Note.FAILED`` message.
    """
    template = MESSAGES.get(kind or Note.FAILED, MESSAGES[Note.FAILED])  # type: ignore[call-overload]
    return template.format(
        label=label,
        entity=entity or "the request",
        fields=", ".join(fields) or "the missing details",
        reason=reason,
    )

"""FHIR errors as values: one exception type the server turns into an OperationOutcome."""

from __future__ import annotations

from typing import Any


class FHIRError(Exception):
    """A request the server refuses, with its HTTP status and FHIR issue code."""

    def __init__(self, status: int, code: str, diagnostics: str) -> None:
        super().__init__(diagnostics)
        self.status = status
        self.code = code
        self.diagnostics = diagnostics

    def outcome(self) -> dict[str, Any]:
        return operation_outcome(
            self.code, self.diagnostics, "error" if self.status < 500 else "fatal"
        )


def operation_outcome(code: str, diagnostics: str, severity: str = "error") -> dict[str, Any]:
    return {
        "resourceType": "OperationOutcome",
        "issue": [{"severity": severity, "code": code, "diagnostics": diagnostics}],
    }

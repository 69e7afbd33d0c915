"""The failure boundary shared by every tool: each kind of failure → one typed outcome."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from docgemma.ehr.client import EHRError
from docgemma.tools.base import ToolErrorType
from docgemma.tools.guard import Refused, guarded
from docgemma.tools.http import ServiceOffline, ToolFailure, error_outcome

REFUSAL = error_outcome(ToolErrorType.INVALID_ARGS, "Probe", message="Say which drug.")


@pytest.mark.parametrize(
    ("service", "raised", "error_type", "says"),
    [
        (None, Refused(REFUSAL), ToolErrorType.INVALID_ARGS, "Say which drug."),
        (None, ToolFailure(ToolErrorType.RATE_LIMIT, "HTTP 429"), ToolErrorType.RATE_LIMIT, "busy"),
        (None, ServiceOffline("dns"), ToolErrorType.SERVICE_UNAVAILABLE, "currently unavailable"),
        ("openFDA", ServiceOffline("dns"), ToolErrorType.SERVICE_UNAVAILABLE, "cannot be reached"),
        (None, EHRError("timeout", "read timed out"), ToolErrorType.TIMEOUT, "temporarily"),
        (None, KeyError("boom"), ToolErrorType.SERVER_ERROR, "temporary error"),
    ],
)
async def test_every_failure_becomes_a_clean_typed_outcome(service, raised, error_type, says):
    @guarded("Probe", lambda a: a.what, service=service)
    async def tool(args, ctx):
        raise raised

    outcome = await tool(SimpleNamespace(what="warfarin"), None)
    assert outcome.error_type is error_type
    assert says in outcome.formatted
    for raw in ("HTTP 429", "dns", "read timed out", "KeyError"):
        assert raw not in outcome.formatted


async def test_a_bad_argument_cannot_break_the_error_report():
    @guarded("Probe", lambda a: a.missing_field)
    async def tool(args, ctx):
        raise RuntimeError("bug")

    outcome = await tool(SimpleNamespace(), None)
    assert outcome.error_type is ToolErrorType.SERVER_ERROR and outcome.entity is None

"""The shared HTTP helper maps every remote failure to one error type and a clean message."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import respx
from recorded import recorded

from docgemma.tools.base import ToolErrorType
from docgemma.tools.http import (
    ServiceOffline,
    ToolFailure,
    create_client,
    error_outcome,
    failure_outcome,
    get_json,
    offline_outcome,
)

URL = "https://api.fda.gov/drug/label.json"


async def failure_for(route_kwargs: dict, **get_kwargs) -> ToolFailure:
    with respx.mock:
        respx.get(URL).mock(**route_kwargs)
        async with httpx.AsyncClient() as client:
            with pytest.raises(ToolFailure) as info:
                await get_json(client, URL, {"search": "x"}, **get_kwargs)
    return info.value


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (
            httpx.Response(429, json={"error": {"code": "OVER_RATE_LIMIT"}}),
            ToolErrorType.RATE_LIMIT,
        ),
        (
            httpx.Response(
                500, json=recorded("openfda", "error_server_error_500_malformed_query.json")
            ),
            ToolErrorType.SERVER_ERROR,
        ),
        (httpx.Response(503, text="Service Unavailable"), ToolErrorType.SERVER_ERROR),
        (
            httpx.Response(404, json=recorded("openfda", "error_not_found_404.json")),
            ToolErrorType.NOT_FOUND,
        ),
        (
            httpx.Response(400, json=recorded("openfda", "error_bad_request_400_sort.json")),
            ToolErrorType.INVALID_ARGS,
        ),
        (
            httpx.Response(403, json={"error": {"code": "API_KEY_INVALID"}}),
            ToolErrorType.SERVICE_UNAVAILABLE,
        ),
        (httpx.Response(200, text="<html>maintenance</html>"), ToolErrorType.MALFORMED_RESPONSE),
    ],
)
async def test_status_codes_and_bodies_map_to_error_types(response, expected):
    failure = await failure_for({"return_value": response})
    assert failure.error_type is expected
    assert (
        str(response.status_code) in failure.detail or expected is ToolErrorType.MALFORMED_RESPONSE
    )


async def test_404_can_mean_drug_not_in_database():
    failure = await failure_for(
        {"return_value": httpx.Response(404, json=recorded("openfda", "error_not_found_404.json"))},
        not_found=ToolErrorType.DRUG_NOT_IN_DATABASE,
    )
    assert failure.error_type is ToolErrorType.DRUG_NOT_IN_DATABASE
    assert "No matches found" in failure.detail


async def test_transport_timeout_and_connection_error():
    timeout = await failure_for({"side_effect": httpx.ReadTimeout("read timed out")})
    assert timeout.error_type is ToolErrorType.TIMEOUT
    refused = await failure_for({"side_effect": httpx.ConnectError("connection refused")})
    assert refused.error_type is ToolErrorType.SERVICE_UNAVAILABLE


async def test_overall_deadline_is_enforced():
    async def slow(request):
        await asyncio.sleep(2)
        return httpx.Response(200, json={})

    loop = asyncio.get_running_loop()
    start = loop.time()
    failure = await failure_for({"side_effect": slow}, deadline_s=0.2)
    assert failure.error_type is ToolErrorType.TIMEOUT
    assert loop.time() - start < 1.5


async def test_success_returns_decoded_json():
    with respx.mock:
        lipitor = recorded("openfda", "label_lipitor_atorvastatin_no_boxed.json")
        route = respx.get(URL).mock(return_value=httpx.Response(200, json=lipitor))
        async with httpx.AsyncClient() as client:
            data = await get_json(client, URL, {"search": "lipitor"})
    assert data["results"][0]["openfda"]["brand_name"] == ["Lipitor"]
    assert route.calls.last.request.url.params["search"] == "lipitor"


def test_client_uses_the_configured_tool_deadline(settings):
    client = create_client(settings.model_copy(update={"tool_timeout_s": 7.5}))
    assert client.timeout.read == 7.5 and client.timeout.connect == 7.5
    assert "DocGemma" in client.headers["User-Agent"]


@pytest.mark.parametrize("error_type", list(ToolErrorType))
def test_every_error_type_has_a_clean_message(error_type):
    outcome = error_outcome(
        error_type, "Drug Safety Report", entity="warfarin", detail="HTTP 500 raw trace"
    )
    assert outcome.error_type is error_type and not outcome.ok
    assert outcome.formatted and "{" not in outcome.formatted
    assert "HTTP 500" not in outcome.formatted and "_" not in outcome.formatted
    assert outcome.error_detail == "HTTP 500 raw trace"


def test_seed_templates_are_used_verbatim():
    timeout = failure_outcome(ToolFailure(ToolErrorType.TIMEOUT, "raw"), "Drug Safety Report")
    assert (
        timeout.formatted
        == "The Drug Safety Report was temporarily unavailable. Please try again shortly."
    )
    missing = error_outcome(ToolErrorType.NOT_FOUND, "Clinical Trial Search", entity="melanoma")
    assert missing.formatted == "No results were found for melanoma in the Clinical Trial Search."


def test_offline_outcome_is_out_of_service_unless_a_retry_could_reach_the_service():
    outcome = offline_outcome(
        "Clinical Trial Search", "the ClinicalTrials.gov registry", entity="melanoma"
    )
    assert outcome.error_type is ToolErrorType.OUT_OF_SERVICE
    retryable = offline_outcome("Clinical Trial Search", "CT.gov", failure=ServiceOffline("dns"))
    assert retryable.error_type is ToolErrorType.SERVICE_UNAVAILABLE
    assert (
        "could not be used" in outcome.formatted
        and "No information was retrieved" in outcome.formatted
    )

"""Clinical Trial Search: recorded ClinicalTrials.gov v2 responses, paging, failures, offline."""

from __future__ import annotations

import httpx
import pytest
import respx
from recorded import recorded

from docgemma.tools import trials
from docgemma.tools.args import ClinicalTrialsArgs
from docgemma.tools.base import ToolContext, ToolErrorType
from docgemma.tools.http import create_client

PAGE2_TOKEN = "ZVt07cGHkvI2wRk2CJf6_LLq14bEL8swd7KrgP4dnDeTsPkw"


@pytest.fixture
def online(settings):
    return settings.model_copy(update={"offline": False})


async def find(
    settings, condition: str, status: str | None = None, response=None, side_effect=None
):
    with respx.mock:
        route = respx.get(trials.CTGOV_URL).mock(return_value=response, side_effect=side_effect)
        async with create_client(settings) as http:
            outcome = await trials.SPEC.run(
                ClinicalTrialsArgs.model_construct(condition=condition, status=status),
                ToolContext(settings, http=http),
            )
    return outcome, route


def test_parse_page_reads_studies_token_and_total():
    studies, token, total = trials.parse_page(
        recorded("clinicaltrials", "search_cond_melanoma_recruiting_pagesize3.json")
    )
    assert total == 480 and token and len(studies) == 3
    second = studies[1]
    assert second["nct_id"] == "NCT04114136" and second["status"] == "recruiting"
    assert (
        second["phases"] == ["Phase 2"]
        and second["url"] == "https://clinicaltrials.gov/study/NCT04114136"
    )
    assert studies[0]["phases"] == ["n/a"]


def test_single_study_record_parses():
    study = trials.parse_study(recorded("clinicaltrials", "study_NCT06382129.json"))
    assert study["nct_id"] == "NCT06382129" and study["title"] and study["conditions"]


async def test_paging_follows_next_page_token():
    pages = [
        httpx.Response(
            200, json=recorded("clinicaltrials", "search_cond_phelan_mcdermid_pagesize5.json")
        ),
        httpx.Response(
            200, json=recorded("clinicaltrials", "search_cond_phelan_mcdermid_page2.json")
        ),
    ]
    with respx.mock:
        route = respx.get(trials.CTGOV_URL).mock(side_effect=pages)
        async with httpx.AsyncClient() as client:
            studies, total = await trials.search_studies(
                client, "Phelan-McDermid Syndrome", None, limit=8, page_size=5
            )
    assert total == 21 and len(studies) == 8
    assert [s["nct_id"] for s in studies[4:6]] == ["NCT07119606", "NCT05187377"]
    first, second = (call.request.url.params for call in route.calls)
    assert (
        "pageToken" not in first
        and first["countTotal"] == "true"
        and first["query.cond"] == "Phelan-McDermid Syndrome"
    )
    assert second["pageToken"] == PAGE2_TOKEN and "countTotal" not in second


async def test_recruiting_trials(online):
    first = recorded("clinicaltrials", "search_cond_melanoma_recruiting_pagesize3.json")
    pages = [httpx.Response(200, json=first), httpx.Response(200, json={"studies": []})]
    outcome, route = await find(online, "melanoma", "recruiting", side_effect=pages)
    assert outcome.ok and outcome.data["total"] == 480
    params = route.calls[0].request.url.params
    assert params["filter.overallStatus"] == "RECRUITING" and params["query.cond"] == "melanoma"
    assert route.calls[1].request.url.params["pageToken"] == first["nextPageToken"]
    assert outcome.formatted.startswith(
        "ClinicalTrials.gov studies for “melanoma” (480 registered; showing 3)"
    )
    assert "- NCT04114136:" in outcome.formatted and "recruiting, Phase 2" in outcome.formatted
    assert [s.kind for s in outcome.sources] == ["trial"] * 3
    assert "find_clinical" not in outcome.formatted


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("Recruiting", "RECRUITING"),
        ("completed", "COMPLETED"),
        ("active, not recruiting", "ACTIVE_NOT_RECRUITING"),
        ("NOT_YET_RECRUITING", "NOT_YET_RECRUITING"),
        ("currently recruiting", "RECRUITING"),
        ("", None),
        ("maybe", None),
    ],
)
def test_status_filter(status, expected):
    assert trials.status_filter(status) == expected


async def test_unknown_status_is_ignored_and_said(online):
    page = recorded("clinicaltrials", "search_cond_melanoma_recruiting_pagesize3.json")
    page.pop("nextPageToken")
    outcome, route = await find(online, "melanoma", "soonish", httpx.Response(200, json=page))
    assert "filter.overallStatus" not in route.calls.last.request.url.params
    assert "“soonish” is not a registry status" in outcome.formatted


async def test_no_studies_is_not_found(online):
    outcome, _ = await find(
        online, "zzzz", "recruiting", httpx.Response(200, json={"studies": [], "totalCount": 0})
    )
    assert outcome.error_type is ToolErrorType.NOT_FOUND
    assert outcome.formatted == (
        "No results were found for zzzz (recruiting) in the Clinical Trial Search."
    )


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"response": httpx.Response(429)}, ToolErrorType.RATE_LIMIT),
        ({"response": httpx.Response(503, text="maintenance")}, ToolErrorType.SERVER_ERROR),
        ({"side_effect": httpx.ReadTimeout("slow")}, ToolErrorType.TIMEOUT),
        ({"side_effect": httpx.ConnectError("refused")}, ToolErrorType.OUT_OF_SERVICE),
        ({"response": httpx.Response(200, text="not json")}, ToolErrorType.MALFORMED_RESPONSE),
        (
            {"response": httpx.Response(200, json={"studies": "nope"})},
            ToolErrorType.MALFORMED_RESPONSE,
        ),
        ({"response": httpx.Response(400, text="bad filter")}, ToolErrorType.INVALID_ARGS),
    ],
)
async def test_failures_are_typed(online, kwargs, expected):
    outcome, _ = await find(online, "melanoma", **kwargs)
    assert outcome.error_type is expected and "Clinical Trial Search" in outcome.formatted
    assert outcome.error_detail and outcome.entity == "melanoma"


async def test_blank_condition_is_invalid_args(online):
    outcome, route = await find(online, "  ", response=httpx.Response(200, json={}))
    assert outcome.error_type is ToolErrorType.INVALID_ARGS and route.call_count == 0


async def test_offline_is_unavailable(settings):
    outcome, route = await find(settings, "melanoma", response=httpx.Response(200, json={}))
    assert outcome.error_type is ToolErrorType.OUT_OF_SERVICE and route.call_count == 0
    assert outcome.formatted.startswith("The Clinical Trial Search could not be used: it needs")


def test_spec_matches_the_seed():
    spec = trials.SPEC
    assert (spec.name, spec.label) == ("find_clinical_trials", "Clinical Trial Search")
    assert spec.description.startswith(
        "Search ClinicalTrials.gov for active, recruiting, or completed"
    )
    assert spec.args.model_validate(spec.example.args)
